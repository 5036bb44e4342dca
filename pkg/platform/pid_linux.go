package platform

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// pidMaxLimit is PID_MAX_LIMIT on 64-bit Linux: pid_max can never exceed it.
const pidMaxLimit = 1 << 22

var cachedPIDMax atomic.Int64

// maxPID returns the kernel's pid_max. It is cached, and re-read before a PID
// above the cached value is refused, because an administrator may raise it
// while we run.
func maxPID(pid int) int {
	if m := cachedPIDMax.Load(); m > 0 && int64(pid) <= m {
		return int(m)
	}
	m := int64(pidMaxLimit)
	if b, err := os.ReadFile("/proc/sys/kernel/pid_max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && n <= pidMaxLimit {
			m = n
		}
	}
	cachedPIDMax.Store(m)
	return int(m)
}
