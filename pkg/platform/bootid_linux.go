package platform

import (
	"errors"
	"fmt"
	"strings"

	"gjc.dev/reconciler/pkg/atomicfile"
)

func readBootID() (string, error) {
	b, err := atomicfile.ReadCapped("/proc/sys/kernel/random/boot_id", 128)
	if err != nil {
		return "", fmt.Errorf("boot id: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if id == "" {
		return "", errors.New("boot id: empty")
	}
	return id, nil
}
