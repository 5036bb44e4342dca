package platform

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"gjc.dev/reconciler/pkg/atomicfile"
)

// MaxLeaseSize caps what CaptureLease reads: fenced files are small records,
// and a huge or endless file must not exhaust memory.
const MaxLeaseSize = 64 << 10

// Lease is what was observed of one version of a file: which inode it was
// and exactly what it held. A file is still the leased one only while every
// field matches; ExactUnlink deletes nothing else.
type Lease struct {
	Dev     uint64
	Ino     uint64
	Size    int64
	MtimeNs int64
	Nlink   uint64 // always 1: a file with other names could change through them
	Content []byte
	SHA256  [sha256.Size]byte
}

// testHookLeaseRead runs between CaptureLease's first fstat and its read.
var testHookLeaseRead func(path string)

// CaptureLease observes the file at path as a Lease. It refuses a symbolic
// link, anything but a regular file, a file with more than one link, and a
// file over MaxLeaseSize; and it fails with ErrFileChanged if the file
// changed while being read or the name no longer points at it afterwards.
func CaptureLease(path string) (Lease, error) {
	fd, err := atomicfile.OpenNoFollow(path)
	if err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", atomicfile.ExplainOpenErr(path, err))
	}
	defer atomicfile.CloseFD(fd)
	before, err := atomicfile.Fstat(fd, path)
	if err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", err)
	}
	if err := leasable(path, before); err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", err)
	}
	if testHookLeaseRead != nil {
		testHookLeaseRead(path)
	}
	content, err := atomicfile.ReadCappedFD(fd, path, MaxLeaseSize, before.Size)
	if err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", err)
	}
	after, err := atomicfile.Fstat(fd, path)
	if err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", err)
	}
	// ctime is in the comparison: it moves with every write, truncate,
	// chmod and link, so equal answers mean nothing touched the inode.
	if after != before || int64(len(content)) != after.Size {
		return Lease{}, fmt.Errorf("capture lease: %w: %s", ErrFileChanged, path)
	}
	named, err := atomicfile.Lstat(path)
	if err != nil {
		return Lease{}, fmt.Errorf("capture lease: %w", err)
	}
	if !named.SameFile(after) {
		return Lease{}, fmt.Errorf("capture lease: %w: %s now names another file", ErrFileChanged, path)
	}
	return leaseOf(after, content), nil
}

func leasable(path string, st atomicfile.Stat) error {
	switch {
	case !st.IsRegular():
		return fmt.Errorf("%w: %s is not a regular file (mode %#o)", ErrUnsafeFile, path, st.Mode)
	case st.Nlink != 1:
		return fmt.Errorf("%w: %s has %d links", ErrUnsafeFile, path, st.Nlink)
	case st.Size > MaxLeaseSize:
		return fmt.Errorf("%w: %s is %d bytes, over %d", ErrTooLarge, path, st.Size, MaxLeaseSize)
	}
	return nil
}

func leaseOf(st atomicfile.Stat, content []byte) Lease {
	return Lease{
		Dev:     st.Dev,
		Ino:     st.Ino,
		Size:    st.Size,
		MtimeNs: st.MtimeNs,
		Nlink:   st.Nlink,
		Content: content,
		SHA256:  sha256.Sum256(content),
	}
}

// VerifyLease checks that the file at path is still exactly the version
// lease describes: nil if so, else a *LeaseMismatchError saying what
// differs, or why the file could not be captured (gone, replaced by a link,
// changed while read, ...), which equally means it is not proved the same.
func VerifyLease(path string, lease Lease) error {
	if e := verifyLeaseAt(path, path, lease); e != nil {
		return e
	}
	return nil
}

// verifyLeaseAt checks the file now at `at`, reporting it as path.
func verifyLeaseAt(path, at string, lease Lease) *LeaseMismatchError {
	got, err := CaptureLease(at)
	if err != nil {
		return &LeaseMismatchError{Path: path, Want: lease, Err: err}
	}
	if !lease.Equal(got) {
		return &LeaseMismatchError{Path: path, Want: lease, Got: &got}
	}
	return nil
}

// Equal reports whether l and o describe the same version of the same file.
func (l Lease) Equal(o Lease) bool { return len(l.diff(o)) == 0 }

// fieldDiff is one lease field in which two leases differ.
type fieldDiff struct{ field, want, got string }

func (d fieldDiff) String() string { return d.field + " " + d.want + " != " + d.got }

// diff lists the fields in which o differs from l.
func (l Lease) diff(o Lease) []fieldDiff {
	var d []fieldDiff
	add := func(field string, want, got any) {
		d = append(d, fieldDiff{field, fmt.Sprint(want), fmt.Sprint(got)})
	}
	if l.Dev != o.Dev {
		add("dev", l.Dev, o.Dev)
	}
	if l.Ino != o.Ino {
		add("ino", l.Ino, o.Ino)
	}
	if l.Size != o.Size {
		add("size", l.Size, o.Size)
	}
	if l.MtimeNs != o.MtimeNs {
		add("mtime", l.MtimeNs, o.MtimeNs)
	}
	if l.Nlink != o.Nlink {
		add("nlink", l.Nlink, o.Nlink)
	}
	if l.SHA256 != o.SHA256 || !bytes.Equal(l.Content, o.Content) {
		add("content", "sha256:"+hex.EncodeToString(l.SHA256[:6]), "sha256:"+hex.EncodeToString(o.SHA256[:6]))
	}
	return d
}
