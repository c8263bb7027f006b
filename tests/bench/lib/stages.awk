# SPDX-License-Identifier: GPL-2.0
#
# Folds `perf report --sort comm,sym -g none -q` lines ("12.34%  comm  [k]
# symbol") into the data path's stages (docs/perf.md names each), and
# prints them as one JSON object of percentages of all samples. The first
# rule that matches a symbol decides; user-space samples go by process.
function stage(comm, kind, sym) {
	if (sym ~ /^bpf_prog_[0-9a-f]+_/) {
		sub(/^bpf_prog_[0-9a-f]+_/, "", sym)
		return "bpf:" sym
	}
	if (kind == "[.]" || kind == "[u]") {
		if (comm ~ /^mrcd/) return "user:mrcd"
		if (comm ~ /^(mrc-perf|iperf3)/) return "user:app"
		if (comm == "perf") return "perf_itself"
		return "user:other"
	}
	if (comm == "perf") return "perf_itself"
	if (sym ~ /^(do_idle|cpuidle|default_idle|intel_idle|acpi_idle|native_safe_halt|pv_native_safe_halt|poll_idle|cpu_idle|arch_cpu_idle|mwait_idle|cpu_startup_entry|tick_nohz_idle)/)
		return "idle"
	if (sym ~ /mem_allocator_disconnect|rhashtable|^rht_|xdp_reg_mem_model|xdp_unreg_mem_model|mutex_spin_on_owner|mutex_lock|xdp_test_run_setup|xdp_test_run_teardown|^ptr_ring/)
		return "test_run_setup"
	if (sym ~ /^page_pool|^__page_pool/)
		return "page_pool"
	if (sym ~ /bpf_test_run|xdp_test_run|bpf_prog_test_run|bpf_test_timer/)
		return "test_run_loop"
	if (sym ~ /^veth_|^__veth/)
		return "veth"
	if (sym ~ /xdp_do_redirect|dev_map|^bq_|xdp_do_flush|__dev_flush|xdp_convert_buff|xdp_master_redirect|__xdp_return|xdp_return/)
		return "redirect"
	if (sym ~ /memcpy|memmove|memset|bpf_xdp_load_bytes|bpf_xdp_store_bytes|bpf_xdp_copy|copy_user|rep_movs|copyin|copyout|_copy_to|_copy_from/)
		return "copy"
	if (sym ~ /csum|checksum/)
		return "checksum"
	if (sym ~ /spin_lock|spin_unlock|queued_spin|_raw_spin|native_queued/)
		return "locks"
	if (sym ~ /htab|array_map|bpf_map|percpu_array|ringbuf|^bpf_|__bpf/)
		return "bpf_maps_helpers"
	if (sym ~ /^tcp_|^__tcp|^ip_|^__ip|^ipv6_|dev_queue_xmit|dev_hard_start|netif_|napi_|^skb_|^__skb|kfree_skb|alloc_skb|^sock_|^sk_|gro|^udp|^__udp|^inet|__netif|net_rx_action|process_backlog|^nf_|^fib_/)
		return "net_stack"
	if (sym ~ /entry_SYSCALL|syscall|schedule|finish_task_switch|pick_next|enqueue_|dequeue_|try_to_wake_up|ep_poll|epoll|eventfd|futex|wake_up|update_curr|update_load|select_task|__switch_to|psi_|hrtimer|timerfd|sysret|irqentry|restore_regs|ktime_get|read_tsc|clock_gettime|do_nanosleep/)
		return "syscalls_sched"
	if (sym ~ /kmem_cache|kmalloc|kfree|^__alloc|alloc_pages|free_unref|__free_pages|get_page_from_freelist|rmqueue|slab/)
		return "alloc"
	return "kernel_other"
}
{
	p = $1
	sub(/%$/, "", p)
	if (p !~ /^[0-9.]+$/) next
	comm = $2
	kind = $3
	sym = $4
	pct[stage(comm, kind, sym)] += p
}
END {
	n = 0
	printf "{"
	for (s in pct)
		printf "%s\"%s\": %.1f", n++ ? ", " : "", s, pct[s]
	print "}"
}
