package fleetbus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/atomicfile"
	"gjc.dev/reconciler/pkg/bus"
)

// FleetInbox is the directory, in a name's bus, of this machine's inbox
// ledger: what it knows of each file of the fleet's inbox.
//
//	landed/<entry>  landed here by this machine's daemon, its bytes, not
//	                yet put in etcd (kept before the file was published,
//	                so a reader taking the file loses etcd nothing)
//	put/<entry>     landed here and put in etcd (landed/ renamed)
//	copied/<entry>  copied here from etcd, recorded before the copy is
//	                published (empty)
//
// <entry> is "<session>,<file>": a comma is in neither name's alphabet,
// and one flat directory is one watch. The invariant: a file is written
// into the inbox from etcd only by the one step that records it in
// copied/, and never while any of the three holds its entry; so every
// machine has it once, whatever restarts, and the landing machine never
// gets it twice. The daemon and the loop read and change an entry's state
// only under the ledger's lock (.lock, inboxlock.go). put/ and copied/ are
// pruned after LedgerKeep, and only once etcd has forgotten the entry.
const FleetInbox = "fleet-inbox"

// InboxTTL is how long a landed file stays in the fleet's inbox in etcd.
const InboxTTL = 24 * time.Hour

// LedgerKeep is how long put/ and copied/ remember an entry: longer than
// the entry lives in etcd (InboxTTL from its put, which is never later
// than the record's time), so none is copied again while it is there.
const LedgerKeep = InboxTTL + time.Hour

// Ledger states of an entry.
const (
	notHere = ""
	landed  = "landed"
	put     = "put"
	copied  = "copied"
)

type ledger struct{ dir string }

func ledgerOf(d bus.Dirs) ledger { return ledger{dir: filepath.Join(d.Dir, FleetInbox)} }

// entry is one file of the fleet's inbox.
type entry struct{ session, file string }

func (e entry) name() string { return e.session + "," + e.file }

// parseEntry reads a ledger file name, refusing one this ledger never
// writes.
func parseEntry(name string) (entry, bool) {
	s, f, ok := strings.Cut(name, ",")
	return entry{s, f}, ok && bus.ValidInboxSession(s) && bus.ValidInboxFile(f)
}

func (l ledger) stateDir(state string) string { return filepath.Join(l.dir, state) }

func (l ledger) path(state string, e entry) string {
	return filepath.Join(l.stateDir(state), e.name())
}

// ensure makes the ledger's directories, private, each durably where it
// is new (a record in a directory whose own entry a crash lost is lost
// too, and a copy recorded then lost is copied again). FleetInbox itself
// is judged first: a symbolic link there would move the ledger elsewhere.
func (l ledger) ensure() error {
	for _, dir := range []string{l.dir, l.stateDir(landed), l.stateDir(put), l.stateDir(copied)} {
		_, err := os.Lstat(dir)
		missing := errors.Is(err, fs.ErrNotExist)
		if err := atomicfile.CheckPrivateDir(dir); err != nil {
			return fmt.Errorf("the fleet inbox ledger: %w", err)
		}
		if missing {
			if err := atomicfile.SyncDir(filepath.Dir(dir)); err != nil {
				return fmt.Errorf("the fleet inbox ledger: %w", err)
			}
		}
	}
	return nil
}

// state says what the ledger knows of e.
func (l ledger) state(e entry) (string, error) {
	for _, state := range []string{copied, landed, put} {
		fi, err := os.Lstat(l.path(state, e))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("the fleet inbox ledger: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("the fleet inbox ledger: %s is not a regular file", l.path(state, e))
		}
		return state, nil
	}
	return notHere, nil
}

// keep records that this machine's daemon landed e with data, to be put
// in etcd; copied: e is here already, copied from etcd, so the landing
// must not publish it again.
func (l ledger) keep(e entry, data []byte) (isCopied bool, err error) {
	unlock, err := l.lock()
	if err != nil {
		return false, err
	}
	defer unlock()
	state, err := l.state(e)
	switch {
	case err != nil:
		return false, err
	case state == copied:
		return true, nil
	case state != notHere:
		return false, nil // kept already (a landing completed after a crash)
	}
	if err := l.ensure(); err != nil {
		return false, err
	}
	if err := atomicfile.Write(l.path(landed, e), data); err != nil {
		return false, fmt.Errorf("keeping %s for the fleet: %w", e.name(), err)
	}
	return false, nil
}

// landedEntries lists landed/: what waits to be put in etcd.
func (l ledger) landedEntries() ([]entry, error) {
	names, err := os.ReadDir(filepath.Join(l.dir, landed))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the fleet inbox ledger: %w", err)
	}
	var out []entry
	for _, n := range names {
		if e, ok := parseEntry(n.Name()); ok && n.Type().IsRegular() {
			out = append(out, e)
		}
	}
	return out, nil
}

// markPut moves e from landed/ to put/, dated now: LedgerKeep counts from
// the put, not from the landing, which may be long before.
func (l ledger) markPut(e entry, now time.Time) error {
	from, to := l.path(landed, e), l.path(put, e)
	if err := os.Chtimes(from, now, now); err != nil {
		return fmt.Errorf("the fleet inbox ledger: %w", err)
	}
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("the fleet inbox ledger: %w", err)
	}
	if err := atomicfile.SyncDir(filepath.Dir(to)); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(from))
}

// markCopied records, durably, that e is copied here: from then on it is
// never written into the inbox again.
func (l ledger) markCopied(e entry) error {
	if err := l.ensure(); err != nil {
		return err
	}
	if err := atomicfile.Write(l.path(copied, e), nil); err != nil {
		return fmt.Errorf("the fleet inbox ledger: %w", err)
	}
	return nil
}

// prune removes the put/ and copied/ entries older than LedgerKeep that
// are not inEtcd (the fleet's inbox as just listed), and the temp files a
// crashed write left in any of the three. The age alone is not enough:
// etcd extends every lease by its whole TTL at each change of leader, so
// an entry can outlive InboxTTL by a day, and one forgotten here while it
// is there would be copied again.
func (l ledger) prune(now time.Time, inEtcd map[entry]bool) error {
	var errs []error
	for _, state := range []string{landed, put, copied} {
		dir := filepath.Join(l.dir, state)
		names, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, n := range names {
			fi, err := n.Info()
			if err != nil {
				continue // gone since the listing
			}
			e, ok := parseEntry(n.Name())
			_, kind, temp := atomicfile.ParseLeftover(n.Name())
			stale := temp && kind == atomicfile.LeftoverTemp && now.Sub(fi.ModTime()) > time.Hour ||
				ok && state != landed && !inEtcd[e] && now.Sub(fi.ModTime()) > LedgerKeep
			if stale && fi.Mode().IsRegular() {
				if err := os.Remove(filepath.Join(dir, n.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("pruning the fleet inbox ledger: %w", err)
	}
	return nil
}
