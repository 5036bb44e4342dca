package platform

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

func readBootID() (string, error) {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return "", fmt.Errorf("boot id: sysctl kern.bootsessionuuid: %w", err)
	}
	if id == "" {
		return "", errors.New("boot id: empty")
	}
	return id, nil
}
