package gc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"golang.org/x/sys/unix"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/incarnation"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/ownership/fsstore"
	"gjc.dev/reconciler/pkg/platform"
)

// referenceTemp matches the temp names the reference system writes
// (<file>.<pid>.<uuid>.tmp), which a crash can leave behind too.
var referenceTemp = regexp.MustCompile(`^(state\.json|control\.json|owner\.lock|owner\.lock\.reclaim)\.\d+\.[0-9a-f-]{36}\.tmp$`)

// scan judges the files of one daemon dir.
type scan struct {
	o       Options
	paths   ownership.Paths
	managed bool
	rep     *Report
	// ownerGone is set when the record's owner is proven gone (or there is
	// no record), so the name's logs are leftovers too.
	ownerGone bool
}

func (s *scan) dir() {
	// The reclaim lock first: reclaiming owner.lock takes (and cleans) it.
	s.lock(s.paths.Reclaim, KindReclaimLock)
	s.lock(s.paths.Lock, KindOwnerLock)
	s.control()
	s.state()
	entries, err := os.ReadDir(s.paths.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(s.paths.Dir, name)
		if _, kind, ok := atomicfile.ParseLeftover(name); ok {
			k := KindTemp
			if kind == atomicfile.LeftoverQuarantine {
				k = KindQuarantine
			}
			s.leftover(path, k)
			continue
		}
		if referenceTemp.MatchString(name) {
			s.leftover(path, KindTemp)
			continue
		}
		if strings.HasPrefix(name, "daemon-") && strings.HasSuffix(name, ".log") {
			s.rotatedLog(path)
		}
	}
}

// lock judges owner.lock or owner.lock.reclaim by its creator's liveness.
func (s *scan) lock(path, kind string) {
	lease, err := platform.CaptureLease(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		s.keep(path, kind, KeepUnverifiable+": "+err.Error())
		return
	}
	l, err := ownership.ParseOwnerLock(lease.Content)
	if err != nil {
		s.keep(path, kind, KeepUnverifiable+": "+err.Error())
		return
	}
	if why, gone := s.gone(l.PID, l.Incarnation); !gone {
		s.keep(path, kind, why)
		return
	}
	why := fmt.Sprintf("creator pid %d is gone", l.PID)
	if kind == KindOwnerLock {
		// Through the ownership contract: under the reclaim lock, re-checked
		// against the record, so a daemon acquiring right now is never cut off.
		s.drop(path, kind, why, func() error { return fsstore.Reclaim(s.paths) })
		return
	}
	s.remove(path, kind, why, lease)
}

// control judges control.json by its addressee.
func (s *scan) control() {
	lease, err := platform.CaptureLease(s.paths.Control)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		s.keep(s.paths.Control, KindControl, KeepUnverifiable+": "+err.Error())
		return
	}
	c, err := ownership.ParseControl(lease.Content)
	if err != nil {
		s.keep(s.paths.Control, KindControl, KeepUnverifiable+": "+err.Error())
		return
	}
	if why, gone := s.gone(c.PID, c.Incarnation); !gone {
		s.keep(s.paths.Control, KindControl, why)
		return
	}
	s.remove(s.paths.Control, KindControl, fmt.Sprintf("addressed to pid %d, which is gone", c.PID), lease)
}

// state removes a stopped record only for a name no spec declares and no
// reconciler manages: otherwise it is history for status.
func (s *scan) state() {
	rec := fsstore.ReadState(s.paths)
	if !rec.Present {
		s.ownerGone = true
		return
	}
	if rec.State == nil {
		s.keep(s.paths.State, KindState, KeepUnverifiable+": malformed record")
		return
	}
	st := rec.State
	why, gone := s.gone(st.PID, st.Incarnation)
	s.ownerGone = gone
	switch {
	case !gone:
		s.keep(s.paths.State, KindState, why)
	case s.managed:
		s.keep(s.paths.State, KindState, KeepManaged+": the name is in a spec or the inventory")
	default:
		lease, err := platform.CaptureLease(s.paths.State)
		if err != nil {
			s.keep(s.paths.State, KindState, KeepUnverifiable+": "+err.Error())
			return
		}
		if !bytes.Equal(lease.Content, rec.Raw) {
			s.keep(s.paths.State, KindState, KeepUnverifiable+": the record changed while it was judged")
			return
		}
		s.remove(s.paths.State, KindState, fmt.Sprintf("owner pid %d is gone and no spec or inventory names %s", st.PID, s.paths.Name()), lease)
	}
}

func (s *scan) leftover(path, kind string) {
	fi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if age := s.o.Now.Sub(fi.ModTime()); age < leftoverAge {
		s.keep(path, kind, fmt.Sprintf("%s: %v old; a write may be in progress", KeepRecent, age.Round(1e9)))
		return
	}
	if kind == KindTemp {
		// A temp name promises nothing, and it may be the second link of a
		// lock whose creator died between link(2) and removing the temp
		// name: a lease refuses two links, so that lock stays wedged until
		// this name goes. Unlinking a name never touches the other one.
		s.removePlain(path, kind, "left by an interrupted write")
		return
	}
	lease, err := platform.CaptureLease(path)
	if err != nil {
		s.keep(path, kind, KeepUnverifiable+": "+err.Error())
		return
	}
	s.remove(path, kind, "left by an interrupted write", lease)
}

// rotatedLog: old logs of a name whose owner is gone and that nothing manages.
func (s *scan) rotatedLog(path string) {
	if s.managed || !s.ownerGone {
		s.keep(path, KindRotatedLog, KeepManaged+": the daemon is managed or running")
		return
	}
	lease, err := platform.CaptureLease(path)
	if err != nil {
		// Logs can outgrow a lease's cap; their age decides instead.
		fi, serr := os.Lstat(path)
		if serr != nil || !fi.Mode().IsRegular() {
			s.keep(path, KindRotatedLog, KeepUnverifiable+": "+err.Error())
			return
		}
		s.removePlain(path, KindRotatedLog, "rotated log of an unmanaged, stopped daemon")
		return
	}
	s.remove(path, KindRotatedLog, "rotated log of an unmanaged, stopped daemon", lease)
}

// gone proves a process gone (dead, or its PID reused), or says why not.
func (s *scan) gone(pid int, recorded string) (string, bool) {
	alive, cur, err := s.o.Probe.Observe(pid)
	switch {
	case errors.Is(err, platform.ErrInvalidPID):
		return "", true
	case err != nil:
		return KeepUnverifiable + ": " + err.Error(), false
	case !alive:
		return "", true
	}
	// kill(pid, 0) answering EPERM: the process exists and is another user's.
	if errors.Is(unix.Kill(pid, 0), unix.EPERM) {
		return fmt.Sprintf("%s: pid %d exists and is not ours to judge", KeepEPERM, pid), false
	}
	switch {
	case !incarnation.Valid(recorded):
		return fmt.Sprintf("%s: pid %d is alive and the recorded incarnation %q proves nothing", KeepUnverifiable, pid, recorded), false
	case cur != recorded:
		return "", true // the PID now names another process
	}
	return fmt.Sprintf("%s: pid %d", KeepAlive, pid), false
}

func (s *scan) keep(path, kind, why string) {
	s.rep.add(Item{Path: path, Kind: kind, Action: "keep", Reason: why})
}

// remove drops a judged file by exact unlink, checked first, so a file
// replaced since it was judged is never moved aside, not even for the moment
// a quarantine takes.
func (s *scan) remove(path, kind, why string, lease platform.Lease) {
	s.drop(path, kind, why, func() error {
		if err := platform.VerifyLease(path, lease); err != nil {
			return err
		}
		return platform.ExactUnlink(path, lease)
	})
}

func (s *scan) removePlain(path, kind, why string) {
	s.drop(path, kind, why, func() error { return os.Remove(path) })
}

// drop reports a stale item, and with Prune removes it by unlink.
func (s *scan) drop(path, kind, why string, unlink func() error) {
	it := Item{Path: path, Kind: kind, Stale: true, Action: "would remove", Reason: why}
	if s.o.Prune {
		if err := unlink(); err != nil {
			it.Action, it.Reason = "failed", why+": "+err.Error()
		} else {
			it.Action = "removed"
		}
	}
	s.rep.add(it)
}
