package platform

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// readBootTime reads the "btime" line of /proc/stat: boot time in seconds
// since the epoch, rounded down.
func readBootTime() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, fmt.Errorf("boot time: %w", err)
	}
	// Not bufio.Scanner: the "intr" line can outgrow its line limit on
	// machines with many interrupts.
	for line := range bytes.Lines(b) {
		value, ok := bytes.CutPrefix(line, []byte("btime "))
		if !ok {
			continue
		}
		sec, err := strconv.ParseInt(string(bytes.TrimSpace(value)), 10, 64)
		if err != nil || sec <= 0 {
			return time.Time{}, fmt.Errorf("boot time: /proc/stat: bad btime %q", value)
		}
		return time.Unix(sec, 0), nil
	}
	return time.Time{}, errors.New("boot time: /proc/stat has no btime line")
}
