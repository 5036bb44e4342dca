package bus

import (
	"fmt"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// Read reads and decodes the outbox file at path for a consumer: a final
// symbolic link, a FIFO or anything but a regular file is refused without
// blocking, and so is a file over MaxFileSize.
func Read(path string) (Message, error) {
	data, err := atomicfile.ReadCapped(path, MaxFileSize)
	if err != nil {
		return Message{}, fmt.Errorf("read %s: %w", path, err)
	}
	m, err := Decode(data)
	if err != nil {
		return Message{}, fmt.Errorf("read %s: %w", path, err)
	}
	return m, nil
}
