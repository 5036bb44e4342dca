package platform

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

func readBootTime() (time.Time, error) {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return time.Time{}, fmt.Errorf("boot time: sysctl kern.boottime: %w", err)
	}
	if tv.Sec <= 0 {
		return time.Time{}, fmt.Errorf("boot time: sysctl kern.boottime: bad value %d", tv.Sec)
	}
	return time.Unix(tv.Sec, int64(tv.Usec)*1000), nil
}
