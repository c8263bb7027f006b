// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd: the soft MRC device's firmware. Loads and attaches the data path on
 * the ports, serves applications on a unix socket (each gets only its own
 * QPs, CQs and memory regions), and pumps send queues: a doorbell makes it
 * run the transmit program for that QP until the QP has nothing to send,
 * and QPs with work in flight are polled so that ACK timeouts fire.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "dev_lowlat.h"
#include "log.h"
#include "mrcd.h"
#include "notify.h"
#include "pin.h"
#include "mrc/mrcd_proto.h"

#define SCAN_NS 1000000ull /* sweep for work nobody rang mrcd about */

static int stop;
static uint64_t start_ns; /* when main began */

/* Where a start or takeover spends its time (log-level debug). */
static void step(const char *what)
{
	log_debug("start: %s at %.2f ms\n", what,
		  (double)(now_ns() - start_ns) / 1e6);
}

static void reload(struct mrcd *m, const struct cli *o);

/* SIGTERM and SIGINT stop mrcd; SIGHUP reloads its configuration. */
static void signal_event(struct loop_fd *h)
{
	struct mrcd *m = container_of(h, struct mrcd, sig);
	struct signalfd_siginfo si;

	while (read(h->fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(m, m->cli);
		else
			stop = 1;
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcd [OPTIONS] -p PORT [-p PORT ...] -a IF\n"
		"       mrcd [OPTIONS] -c FILE\n"
		"  -p, --port IF[,mac=MAC][,plane=PREFIX/LEN]\n"
		"                      a port, one per plane, in plane order; mac= is the\n"
		"                      next hop on that plane; plane= the plane's prefix\n"
		"                      (default: the interface's own subnet)\n"
		"  -a, --anchor IF     idle interface the transmit program sits on\n"
		"  -s, --socket PATH   control socket (default $%s or %s)\n"
		"  -P, --pin-dir DIR   pin maps and programs under DIR/abi%d (default %s;\n"
		"                      bpffs; removed on a clean stop)\n"
		"      --no-pin        pin nothing\n"
		"  -6, --ipv6          the planes are IPv6\n"
		"  -c, --config FILE   read FILE (mrcd.conf(5)); options given here win;\n"
		"                      SIGHUP reads it again\n"
		"  -v, --verbose       more log lines (log-level debug)\n"
		"  -h, --help\n",
		MRCD_SOCKET_ENV, MRCD_SOCKET_DEFAULT, MRC_ABI_VERSION,
		MRCD_PIN_DIR_DEFAULT);
}

/* The plane prefix of a port without plane=: its address's own subnet. */
static int port_subnet(struct port_spec *p)
{
	struct ifaddrs *ifa, *i;
	int family = p->v6 ? AF_INET6 : AF_INET, bits, k;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		const uint8_t *a, *mask;
		int len = p->v6 ? 16 : 4;

		if (!i->ifa_addr || !i->ifa_netmask ||
		    strcmp(i->ifa_name, p->ifname) ||
		    i->ifa_addr->sa_family != family)
			continue;
		if (p->v6) {
			a = ((struct sockaddr_in6 *)i->ifa_addr)
				    ->sin6_addr.s6_addr;
			mask = ((struct sockaddr_in6 *)i->ifa_netmask)
				       ->sin6_addr.s6_addr;
			if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
				continue; /* link-local */
		} else {
			a = (const uint8_t *)&(
				    (struct sockaddr_in *)i->ifa_addr)
				    ->sin_addr;
			mask = (const uint8_t *)&(
				       (struct sockaddr_in *)i->ifa_netmask)
				       ->sin_addr;
		}
		for (bits = 0, k = 0; k < len; k++) {
			p->prefix[k] = a[k] & mask[k];
			bits += __builtin_popcount(mask[k]);
		}
		p->prefix_len = bits;
		freeifaddrs(ifa);
		return 0;
	}
	freeifaddrs(ifa);
	return -EADDRNOTAVAIL;
}

/*
 * Work can reach a send queue without mrcd hearing of it: a low-latency
 * doorbell sends one packet and the tc program cannot wake anyone, and
 * what it sent still needs its ACK timeout watched. Every SCAN_NS, QPs
 * with WQEs not completed join the pump list (reading mapped queues only).
 */
static void scan(struct loop_fd *h)
{
	struct mrcd *m = container_of(h, struct mrcd, scan);
	uint64_t ticks;

	if (read(h->fd, &ticks, sizeof(ticks)) < 0)
		return;
	/* Probe answers that came in before their deadline, first: on a busy
	 * machine this timer and the ring are often ready together, and the
	 * answer must not be judged lost for being read after the tick. */
	events_poll(&m->events);
	health_tick(&m->health);
	ctl_tick(&m->ctl);
	peer_tick(&m->peer);
	m->gray_ticks += ticks;
	if (m->gray_ticks * SCAN_NS >= m->cfg.gray_interval_ms * 1000000ull) {
		m->gray_ticks = 0;
		health_gray(&m->health);
	}
	pump_scan(&m->pump);
}

/*
 * The scan timer runs while a module has work for scan(): EVs probed, a
 * device probe awaiting its answer, hellos unanswered, QPs that may be
 * pumped. All of these begin in a loop turn (a request, an event), so
 * looking after each turn is soon enough; with none, the timer stops and
 * an idle mrcd sleeps until something happens (it woke 1,000 times a
 * second for nothing before).
 */
static void scan_arm(struct mrcd *m)
{
	int want = health_ticking(&m->health) || ctl_ticking(&m->ctl) ||
		   peer_ticking(&m->peer) || pump_ticking(&m->pump);
	struct itimerspec it = { 0 };

	if (want == m->scan_armed)
		return;
	if (want) {
		it.it_interval.tv_nsec = SCAN_NS;
		it.it_value.tv_nsec = SCAN_NS;
	}
	if (timerfd_settime(m->scan.fd, 0, &it, NULL)) {
		log_err("the scan timer: %s\n", strerror(errno));
		return;
	}
	m->scan_armed = want;
}

static int run(struct mrcd *m)
{
	uint64_t next_ns = UINT64_MAX, wait;
	int progress = 0, n;

	while (!stop) {
		uint64_t now;

		if (progress) {
			wait = 0; /* data flows: just look for news */
		} else if (m->pump.nactive) {
			now = now_ns();
			wait = next_ns > now ? next_ns - now : 0;
		} else {
			wait = UINT64_MAX;
		}
		n = loop_once(&m->loop, wait);
		if (n < 0) {
			log_err("epoll: %s\n", strerror(-n));
			return 1;
		}
		progress = m->pump.nactive ? pump_pass(&m->pump, &next_ns) : 0;
		scan_arm(m);
	}
	return 0;
}

/* Leftovers in the data path that no booked owner has (a SIGKILL between
 * changing the data path and writing the books). */
static void adopt_sweep(struct mrcd *m)
{
	static uint8_t has[MRC_MAX_QP];
	uint32_t i;

	_Static_assert(MRC_MAX_QP >= MRC_MAX_MR && MRC_MAX_QP >= MRC_MAX_CQ,
		       "has[] holds every kind");
	if (!dev_has_all(&m->dev, DEV_SQ, has, MRC_MAX_QP))
		for (i = 0; i < MRC_MAX_QP; i++)
			if (!m->obj.qp[i].owner && has[i]) {
				dev_qp_destroy(&m->dev, i, NULL);
				dev_pin_sq(m->pin_dir, i, -1);
			}
	if (!dev_has_all(&m->dev, DEV_MR, has, MRC_MAX_MR))
		for (i = 0; i < MRC_MAX_MR; i++)
			if (!m->obj.mr_owner[i] && has[i])
				dev_mr_remove(&m->dev, i);
	if (!dev_has_all(&m->dev, DEV_CQ, has, MRC_MAX_CQ))
		for (i = 0; i < MRC_MAX_CQ; i++)
			if (!m->obj.cq_owner[i] && has[i])
				dev_cq_remove(&m->dev, i);
}

/*
 * The device a stopped or killed mrcd left running: its books, every QP's
 * send queue, and its clients as orphans until their processes resume
 * (or end). The data path never stopped; this mrcd's sweep sends what was
 * posted meanwhile.
 */
static int adopt(struct mrcd *m)
{
	uint32_t i, nqp = 0, nmr = 0, ncq = 0, nproc = 0;
	int err = books_adopt(&m->books);

	if (err)
		return err;
	step("books read");
	links_resync(&m->links); /* ports down while no mrcd watched */
	dev_lowlat_adopt_qdisc((int)m->books.b->lowlat_made_qdisc);
	for (i = 0; i < MRC_MAX_QP; i++)
		if (m->obj.qp[i].owner && !serve_adopt_qp(&m->serve, i))
			nqp++;
	for (i = 0; i < MRC_MAX_MR; i++)
		nmr += m->obj.mr_owner[i] != NULL;
	for (i = 0; i < MRC_MAX_CQ; i++)
		ncq += m->obj.cq_owner[i] != NULL;
	step("QPs taken over");
	adopt_sweep(m);
	step("leftovers swept");
	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		nproc += m->clients.client[i].orphan != 0;
	log_info(
		"took over the running device (mrcd number %llu on it): %u QPs, %u memory regions, %u completion queues of %u processes\n",
		(unsigned long long)m->books.b->generation, nqp, nmr, ncq,
		nproc);
	clients_watch_orphans(&m->clients);
	books_adopted(&m->books);
	return 0;
}

/* ---- wiring: news from a module below to the modules that want it ---- */

static void on_ev_state(void *ctx, const struct mrc_ev_event *v)
{
	struct mrcd *m = ctx;

	health_on_state(&m->health, v);
	ctl_ev_event(&m->ctl, v);
}

static void on_ev_probe(void *ctx, const struct mrc_ev_event *v)
{
	struct mrcd *m = ctx;

	if (v->qpn == MRC_PROBE_QPN)
		ctl_probe_answer(&m->ctl, v); /* a device probe's answer */
	else
		health_on_probe(&m->health, v);
}

static void on_ev_dropped(void *ctx, uint64_t n)
{
	struct mrcd *m = ctx;

	health_on_dropped(&m->health, n);
	ctl_ev_dropped(&m->ctl, n);
}

/* An ACK opened a window: the QP's work goes on (the pump knows only
 * QPs that exist). */
static void on_wake(void *ctx, uint32_t qpn)
{
	struct mrcd *m = ctx;

	pump_activate(&m->pump, qpn);
}

static void on_port_live(void *ctx, int p, int live)
{
	struct mrcd *m = ctx;

	health_port_live(&m->health, p, live);
}

static int on_request(void *ctx, struct client *c, const struct mrcd_req *req,
		      size_t len)
{
	struct mrcd *m = ctx;

	return serve_request(&m->serve, c, req, len);
}

static void on_client_gone(void *ctx, struct client *c)
{
	struct mrcd *m = ctx;

	serve_drop_client(&m->serve, c);
}

static void on_client_change(void *ctx, const struct client *c)
{
	struct mrcd *m = ctx;

	books_client(&m->books, c);
}

/*
 * The modules over the device, bottom up, and their news: what travels up
 * (an ACK opened a window, an EV changed state, a port went down, a
 * client asked or left) comes through these callbacks, never a call from
 * a module into one above it.
 */
/* A port status update we sent was answered (peer.c -> ctl.c). */
static int on_psu_answer(void *arg, uint32_t seq, int port)
{
	struct mrcd *m = arg;

	return ctl_psu_answer(&m->ctl, seq, port);
}

/*
 * The pages of len bytes at p, made present with one call. The modules'
 * state is some 2.8 MB that their init functions write whole; page by page
 * that was 700 faults, and where a fault is dear (a paravirtualized guest:
 * 10-14 ms of a restarted mrcd's start, docs/mrcd.md) one madvise does
 * them all at once. Best effort: a kernel without it faults as before.
 */
static void prefault(void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p;

	(void)madvise((void *)(a & ~(pg - 1)), len + (a & (pg - 1)),
		      MADV_POPULATE_WRITE);
}

static int wire(struct mrcd *m)
{
	const struct events_sink sink = { .ctx = m,
					  .state = on_ev_state,
					  .probe = on_ev_probe,
					  .wake = on_wake,
					  .dropped = on_ev_dropped };
	char names[MRC_MAX_PORTS][16];
	int ifindex[MRC_MAX_PORTS], p, err;
	struct ctl_deps cd = {
		.dev = &m->dev,
		.obj = &m->obj,
		.health = &m->health,
		.peer = &m->peer,
		.probe = &m->probe,
		.links = &m->links,
		.port = m->port,
		.nports = m->nports,
		.v6 = m->v6,
	};

	for (p = 0; p < m->nports; p++) {
		memcpy(names[p], m->port[p].ifname, sizeof(names[p]));
		ifindex[p] = m->dev.port[p].ifindex;
	}
	err = pump_init(&m->pump, &m->dev, &m->loop, m->cfg.tx_threads,
			m->cfg.tx_lanes);
	if (!err)
		err = links_init(&m->links, &m->loop, m->nports,
				 (const char(*)[16])names, ifindex);
	m->links.live_changed = on_port_live;
	m->links.ctx = m;
	probe_open(&m->probe, &m->dev, m->nports);
	if (!err)
		err = health_init(&m->health, &m->dev, &m->probe, &m->links,
				  &m->cfg);
	if (!err && peer_init(&m->peer, &m->loop, &m->dev, &m->probe,
			      &m->health, &m->links, m->port, m->nports, m->v6))
		log_info("no port status updates or dynamic MPR (see above)\n");
	m->peer.on_psu_answer = on_psu_answer;
	m->peer.arg = m;
	if (!err)
		err = ctl_init(&m->ctl, &cd);
	m->books.prof = &m->ctl.prof;
	m->serve = (struct serve){
		.dev = &m->dev,
		.obj = &m->obj,
		.cl = &m->clients,
		.ctl = &m->ctl,
		.health = &m->health,
		.peer = &m->peer,
		.pump = &m->pump,
		.books = &m->books,
		.cfg = &m->cfg,
		.links = &m->links,
		.port = m->port,
		.nports = m->nports,
		.v6 = m->v6,
		.lowlat = m->lowlat,
		.pin_dir = m->pin_dir,
	};
	m->clients.ctx = m;
	m->clients.on_request = on_request;
	m->clients.on_gone = on_client_gone;
	m->clients.on_change = on_client_change;
	if (!err)
		err = events_init(&m->events, &m->dev, &m->loop, &sink);
	return err;
}

static int setup(struct mrcd *m, const char *anchor)
{
	int i, err, running = 0, live;

	/* First: a second mrcd for the same device stops here. */
	if (m->pin_dir) {
		running = dev_pin_present(m->pin_dir);
		if (running) {
			int fd = dev_pin_get(m->pin_dir, "maps", "mrcd_books");

			if (fd >= 0) {
				close(fd);
			} else {
				fd = dev_pin_lock(m->pin_dir);
				if (fd < 0)
					return fd;
				log_info(
					"%s holds a device without mrcd's books (an mrcd ended while starting): removing it\n",
					m->pin_dir);
				dev_unpin(m->pin_dir);
				close(fd);
				running = 0;
			}
		}
		if (!running) {
			err = dev_pin_claim(m->pin_dir);
			if (err)
				return err;
		}
		m->pin_lock_fd = dev_pin_lock(m->pin_dir);
		if (m->pin_lock_fd < 0)
			return m->pin_lock_fd;
		m->pinned = 1;
		m->adopted = running;
	}
	/* Everything that can refuse comes before anything is attached: a
	 * running device is either taken over or left exactly as it was. */
	for (i = 0; i < m->nports; i++) {
		struct port_spec *p = &m->port[i];

		if (!p->has_mac) {
			log_err("port %s: mac= is required\n", p->ifname);
			return -EINVAL;
		}
		p->v6 = m->v6;
		if (p->prefix_len < 0 && port_subnet(p)) {
			log_err("port %s: no %s address to take the plane from\n",
				p->ifname, m->v6 ? "IPv6" : "IPv4");
			return -EADDRNOTAVAIL;
		}
	}
	step("pins claimed");
	err = running ? dev_open_pinned(&m->dev, m->pin_dir) :
			dev_open(&m->dev);
	if (!err && running)
		err = books_check(&m->books);
	if (err)
		return err;
	step("programs ready");
	/* Live frames refused (some kernels: EPERM), or a page too small
	 * for them: the pump transmits by skb instead (below). */
	live = dev_check_live_frame(&m->dev, anchor) == 0;
	for (i = 0; i < m->nports; i++) {
		err = dev_add_port(&m->dev, i, m->port[i].ifname,
				   m->port[i].mac, m->v6);
		if (err)
			return err;
	}
	err = dev_set_anchor(&m->dev, anchor);
	if (err)
		return err;
	step("ports and anchor attached");
	/* Without it applications ring mrcd; slower, still correct. */
	m->lowlat = dev_lowlat_attach(&m->dev) == 0;
	if (!m->lowlat)
		log_info("low-latency doorbells off (see above)\n");
	if (!live) {
		/* Its packets are doorbells that mrc_tc_tx turns into them. */
		if (!m->lowlat) {
			log_err("no live frames and no doorbell program on lo: nothing could transmit\n");
			return -EOPNOTSUPP;
		}
		err = dev_tx_by_skb(&m->dev);
		if (err)
			return err;
		log_info(
			"no live frames here: transmitting by skb (doorbells through mrc_tc_tx on lo, mrcd's own frames by a packet socket)\n");
	}
	if (m->pin_dir) {
		/* A running device's maps are pinned already (the same). */
		err = dev_pin(&m->dev, m->pin_dir, dev_lowlat_prog_fd(),
			      !running);
		if (err)
			return err;
	}
	step("tc attached, pinned");
	i = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (i < 0 || loop_add(&m->loop, &m->scan, i, scan))
		return -EIO;
	err = wire(m);
	step("modules wired");
	if (!err && m->pin_dir)
		err = running ? adopt(m) : books_create(&m->books);
	step(running ? "taken over" : "books made");
	/* The device is this mrcd's now: its ACK clocking (a refused start
	 * leaves a running device's as it was). */
	if (!err)
		err = dev_ack_clock(&m->dev, m->cfg.ack_clock);
	/* The CC profiles as they stand now: the device's own default, or
	 * what the books kept of a predecessor's. */
	if (!err)
		err = ctl_cc_publish_all(&m->ctl);
	if (err)
		return err;
	if (m->books.b)
		m->books.b->lowlat_made_qdisc |=
			(uint32_t)dev_lowlat_made_qdisc();
	step("CC profiles published");
	/* Last: applications that connect find everything in place. */
	err = clients_listen(&m->clients, m->sock_path);
	if (err)
		return err;
	step("listening");
	/* ...and its pump, once nothing can refuse the start: QPs a
	 * predecessor left to their ACKs are this mrcd's to pump again.
	 * Without the watch (no tracepoints here), a killed mrcd's
	 * transfers wait for the next one, as they did. */
	if (m->pin_dir && dev_pump_watch(&m->dev, m->pin_dir)) {
		log_err("no watch on this mrcd's exit: if it is killed, its QPs wait for the next mrcd\n");
		/* What the claim would have cleared: posters ring this mrcd. */
		pump_served(&m->pump);
	}
	step("the pump's watch attached");
	scan_arm(m);
	return 0;
}

/* What the command line said, applied over the configuration file. */
struct cli {
	struct port_spec port[MRC_MAX_PORTS];
	int nports;
	const char *anchor, *socket, *pin_dir;
	int no_pin, v6, verbose;
};

static void apply_cli(struct mrcd_config *c, const struct cli *o)
{
	int i;

	if (o->nports) {
		for (i = 0; i < o->nports; i++)
			c->port[i] = o->port[i];
		c->nports = o->nports;
	}
	if (o->anchor)
		snprintf(c->anchor, sizeof(c->anchor), "%s", o->anchor);
	if (o->socket)
		snprintf(c->socket, sizeof(c->socket), "%s", o->socket);
	else if (!c->line[CONFIG_SOCKET] && getenv(MRCD_SOCKET_ENV))
		snprintf(c->socket, sizeof(c->socket), "%s",
			 getenv(MRCD_SOCKET_ENV));
	if (o->pin_dir)
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", o->pin_dir);
	if (o->no_pin)
		c->pin_dir[0] = 0; /* whatever the order of -P and --no-pin */
	if (o->v6)
		c->ipv6 = 1;
	if (o->verbose)
		c->log_level = CONFIG_LOG_DEBUG;
}

_Static_assert((int)LOG_ERROR == CONFIG_LOG_ERROR &&
		       (int)LOG_WARNING == CONFIG_LOG_WARNING &&
		       (int)LOG_INFO == CONFIG_LOG_INFO &&
		       (int)LOG_DEBUG == CONFIG_LOG_DEBUG,
	       "log-level values are log.h's levels");

/* The configuration's values that mrcd keeps outside m->cfg. */
static void adopt_cfg(struct mrcd *m)
{
	int i;

	for (i = 0; i < m->cfg.nports; i++)
		m->port[i] = m->cfg.port[i];
	m->nports = m->cfg.nports;
	m->v6 = m->cfg.ipv6;
	m->sock_path = m->cfg.socket;
	m->pin_dir = m->cfg.pin_dir[0] ? m->cfg.pin_dir : NULL;
	m->books.pin_dir = m->pin_dir;
	m->clients.max_clients = m->cfg.max_clients;
	log_set_level((enum log_level)m->cfg.log_level);
}

/*
 * SIGHUP: the file again, the command line over it. What may change at
 * run time changes; anything else, or a bad file, keeps the running
 * configuration and says why.
 */
static void reload(struct mrcd *m, const struct cli *o)
{
	static struct mrcd_config next;
	char err[512];

	notify_reloading();
	if (!m->config_path) {
		log_info(
			"SIGHUP: no configuration file (-c): nothing to reload\n");
		notify_send("READY=1\nSTATUS=running (nothing to reload)");
		return;
	}
	config_defaults(&next);
	if (config_load(m->config_path, &next, err, sizeof(err))) {
		log_info("reload refused, configuration kept: %s\n", err);
		notify_send(
			"READY=1\nSTATUS=running; the last reload was refused");
		return;
	}
	apply_cli(&next, o);
	if (config_reload_check(&m->cfg, &next, err, sizeof(err))) {
		log_info("reload refused, configuration kept: %s\n", err);
		notify_send(
			"READY=1\nSTATUS=running; the last reload was refused");
		return;
	}
	if (next.log_level != m->cfg.log_level)
		log_info("log-level %s -> %s\n",
			 config_log_level_name(m->cfg.log_level),
			 config_log_level_name(next.log_level));
	/* Only run-time keys differ (checked above): ports, socket and pins
	 * stay as setup() resolved them (a plane prefix taken from the
	 * interface is in m->port, not in the file). */
	m->cfg = next;
	log_set_level((enum log_level)m->cfg.log_level);
	m->clients.max_clients = m->cfg.max_clients;
	log_info(
		"reloaded %s: probe-answers %u, probe-backoff %u-%u ms, gray-factor %u, reorder %u us\n",
		m->config_path, m->cfg.probe_answers,
		m->cfg.probe_backoff_min_ms, m->cfg.probe_backoff_max_ms,
		m->cfg.gray_factor, m->cfg.reorder_us);
	notify_send("READY=1\nSTATUS=running");
}

/*
 * One mrcd per socket: an exclusive lock on SOCKET.lock, held until mrcd
 * exits (the kernel drops it however mrcd ends).
 */
static int take_lock(struct mrcd *m)
{
	char path[sizeof(m->cfg.socket) + 8];
	int fd;

	snprintf(path, sizeof(path), "%s.lock", m->sock_path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		log_err("%s: %s\n", path, strerror(errno));
		return -1;
	}
	{
		struct stat st;

		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid()) {
			log_err("%s: not a regular file of ours; refusing it\n",
				path);
			close(fd);
			return -1;
		}
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		if (n > 0)
			pid[strcspn(pid, "\n")] = 0;
		log_err("another mrcd%s%s serves %s (it holds %s)\n",
			pid[0] ? ", pid " : "", pid, m->sock_path, path);
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", (int)getpid());
	m->lock_fd = fd;
	return 0;
}

/*
 * Closes what this mrcd holds. keep: the device stays attached and pinned
 * (a hand-over, or a running device it did not take over); else it goes.
 */
static void teardown(struct mrcd *m, int keep)
{
	events_close(&m->events);
	ctl_close(&m->ctl);
	peer_close(&m->peer, &m->loop);
	health_close(&m->health);
	probe_close(&m->probe);
	links_close(&m->links);
	pump_close(&m->pump);
	loop_close(&m->loop);
	books_close(&m->books);
	if (keep) {
		dev_lowlat_release();
		dev_release(&m->dev);
		return;
	}
	if (m->pinned)
		dev_unpin(m->pin_dir);
	if (m->lowlat)
		dev_lowlat_detach(&m->dev);
	dev_close(&m->dev);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", 1, 0, 'p' },	  { "anchor", 1, 0, 'a' },
		{ "socket", 1, 0, 's' },  { "ipv6", 0, 0, '6' },
		{ "verbose", 0, 0, 'v' }, { "pin-dir", 1, 0, 'P' },
		{ "no-pin", 0, 0, 'N' },  { "config", 1, 0, 'c' },
		{ "help", 0, 0, 'h' },	  {}
	};
	static struct mrcd m;
	static struct cli o;
	char err[512];
	sigset_t sigs;
	int c, i, rc, handover, sig_fd;

	start_ns = now_ns();
	prefault(&m, sizeof(m));

	m.scan.fd = m.sig.fd = m.lock_fd = m.loop.epfd = -1;
	m.pin_lock_fd = -1;
	clients_init(&m.clients, &m.loop);
	m.books = (struct books_ctx){
		.cl = &m.clients, .obj = &m.obj, .links = &m.links, .fd = -1
	};
	for (i = 0; i < MRC_MAX_QP; i++)
		m.obj.qp[i].db_fd = -1;
	while ((c = getopt_long(argc, argv, "p:a:s:P:c:6vh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (o.nports == MRC_MAX_PORTS) {
				log_err("at most %d ports\n", MRC_MAX_PORTS);
				return 2;
			}
			if (port_spec_parse(optarg, &o.port[o.nports], err,
					    sizeof(err))) {
				log_err("-p %s: %s\n", optarg, err);
				return 2;
			}
			o.nports++;
			break;
		case 'a':
			o.anchor = optarg;
			break;
		case 's':
			o.socket = optarg;
			break;
		case '6':
			o.v6 = 1;
			break;
		case 'P':
			if (!*optarg) {
				log_err("-P needs a directory\n");
				return 2;
			}
			o.pin_dir = optarg;
			break;
		case 'N':
			o.no_pin = 1;
			break;
		case 'c':
			m.config_path = optarg;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		log_err("unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	config_defaults(&m.cfg);
	snprintf(m.cfg.socket, sizeof(m.cfg.socket), "%s", MRCD_SOCKET_DEFAULT);
	snprintf(m.cfg.pin_dir, sizeof(m.cfg.pin_dir), "%s",
		 MRCD_PIN_DIR_DEFAULT);
	if (m.config_path &&
	    config_load(m.config_path, &m.cfg, err, sizeof(err))) {
		log_err("%s\n", err);
		return 2;
	}
	apply_cli(&m.cfg, &o);
	if (!m.cfg.nports || !m.cfg.anchor[0]) {
		log_err("%s\n",
			!m.cfg.nports ?
				"no port given (-p, or port in -c FILE)" :
				"no anchor interface given (-a, or anchor in -c FILE)");
		usage(stderr);
		return 2;
	}
	if (m.config_path && config_finish(&m.cfg, err, sizeof(err))) {
		log_err("%s\n", err);
		return 2;
	}
	adopt_cfg(&m);
	/* Signals arrive on a signalfd in the event loop. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	if (sig_fd < 0 || take_lock(&m) || loop_init(&m.loop))
		return 1;
	if (setup(&m, m.cfg.anchor) ||
	    loop_add(&m.loop, &m.sig, sig_fd, signal_event)) {
		/* A running device stays as it was found. */
		if (m.adopted)
			log_err("the running device in %s is left as it is\n",
				m.pin_dir);
		teardown(&m, m.adopted);
		return 1;
	}
	log_info("ready: %d ports, socket %s%s%s (%.1f ms after start%s)\n",
		 m.nports, m.sock_path, m.config_path ? ", configuration " : "",
		 m.config_path ? m.config_path : "",
		 (double)(now_ns() - start_ns) / 1e6,
		 !m.adopted   ? "" :
		 m.dev.reused ? ", running programs reused" :
				", programs loaded afresh");
	notify_send("READY=1\nSTATUS=running");
	m.cli = &o;
	rc = run(&m);
	notify_send("STOPPING=1");
	/*
	 * Applications with objects keep them: the data path stays attached
	 * and pinned with the books for the next mrcd (a restart), and their
	 * connections close. With none, the device goes.
	 */
	handover = m.pinned && objects_owned_by(&m.obj, NULL);
	/* From here nothing pumps: the QPs' ACKs clock them meanwhile, from
	 * a packet sent once the data path knows. */
	if (handover && !dev_pump_gone(&m.dev))
		pump_kick(&m.pump);
	/* Booked while the connections still count (a closed one's entry
	 * is a free slot). */
	if (handover)
		books_save(&m.books);
	clients_close(&m.clients, !handover);
	if (handover) {
		uint32_t nqp = 0;

		for (i = 0; i < MRC_MAX_QP; i++)
			nqp += m.obj.qp[i].owner != NULL;
		log_info(
			"handing the device over: %u QPs and their applications' objects stay in the data path (pinned in %s) for the next mrcd\n",
			nqp, m.pin_dir);
		teardown(&m, 1);
		return rc;
	}
	log_info(
		"path health: %llu EV state changes (%llu flaps), %llu probes sent, %llu answered, %llu lost\n",
		(unsigned long long)m.health.ev_state_events,
		(unsigned long long)m.health.flaps,
		(unsigned long long)m.probe.sent,
		(unsigned long long)m.health.probe_answers,
		(unsigned long long)m.health.probes_lost);
	teardown(&m, 0);
	log_info(
		"stopped after %llu transmit calls for %llu QP bursts (%llu on a QP's extra lanes) in %llu passes (%llu over 1 ms, the longest %llu us)\n",
		(unsigned long long)m.pump.tx_calls,
		(unsigned long long)m.pump.qp_bursts,
		(unsigned long long)m.pump.lane_calls,
		(unsigned long long)m.pump.call_passes,
		(unsigned long long)m.pump.passes_over_1ms,
		(unsigned long long)(m.pump.pass_ns_max / 1000));
	return rc;
}
