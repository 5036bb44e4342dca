package platform

import "sync/atomic"

var bootID atomic.Pointer[string]

// BootID returns an identifier of this boot that does not depend on the
// clock (Linux: /proc/sys/kernel/random/boot_id; macOS: kern.bootsessionuuid).
// BootTime moves when the wall clock is stepped, which machines without a
// battery-backed clock do after boot; a boot ID does not.
func BootID() (string, error) {
	if id := bootID.Load(); id != nil {
		return *id, nil
	}
	id, err := readBootID()
	if err != nil {
		return "", err
	}
	bootID.CompareAndSwap(nil, &id)
	return *bootID.Load(), nil
}
