"""The process's own peak resident memory (``evidence_ledger.memory.peak_rss``)."""
from evidence_ledger.memory.peak_rss import high_water_kib, own_peak_rss_kib, peak_rss_mib


def test_high_water_is_read_from_the_vmhwm_line_of_a_proc_status_text():
    assert high_water_kib("Name:\tpython\nVmPeak:\t 900 kB\nVmHWM:\t  123456 kB\nVmRSS:\t 1 kB\n") == 123456
    assert high_water_kib("Name:\tpython\n") is None


def test_the_peak_is_at_least_what_the_process_holds_now():
    status = open("/proc/self/status", encoding="ascii").read()
    now_kib = int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])
    assert own_peak_rss_kib() >= now_kib
    assert abs(peak_rss_mib() - own_peak_rss_kib() / 1024) < 1
