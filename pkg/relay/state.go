package relay

import (
	"strconv"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// state is what the journal says of the service: what each session has
// there and which parts are done or only attempted. It is rebuilt from the
// journal at start (apply, in journal order) and kept up to date as
// records are appended, so it never knows more than the journal proves.
type state struct {
	sessions map[string]*sessionState
	// done maps a part key to the service id it was confirmed with.
	done map[string]string
	// attempts are parts attempted and not (yet) done, by key.
	attempts map[string]attempt
	// lastDone is, per place (a thread id, or "" for the channel), the
	// service id of the last part confirmed there, in journal order.
	lastDone map[string]string
	// texts maps a message id to its text parts' service ids, in order,
	// for a later message of its session that replaces it.
	texts map[string]textIDs
	// sums maps a message id to the MessageSum its attempts were made
	// for: the same id with other content is another message.
	sums map[string]string
	// byThread maps a session's thread id to the session.
	byThread map[string]string
}

type textIDs struct {
	session string
	ids     []string
}

type sessionState struct {
	root   string // the root message's service id; "" while not done
	thread string // the thread's id; "" while not done
	closed bool
	// closedAt is when the close was confirmed (the archive's done
	// record), unix ms; 0 if the record has no time.
	closedAt int64
}

// attempt is an attempt record not followed by its done record.
type attempt struct {
	rec bus.Record
	// after is the place's last done part when the attempt was made: the
	// part, if accepted, lies after it.
	after string
}

func newState() *state {
	return &state{
		sessions: map[string]*sessionState{}, done: map[string]string{},
		attempts: map[string]attempt{}, lastDone: map[string]string{},
		texts: map[string]textIDs{}, sums: map[string]string{}, byThread: map[string]string{},
	}
}

func (s *state) session(name string) *sessionState {
	ss := s.sessions[name]
	if ss == nil {
		ss = &sessionState{}
		s.sessions[name] = ss
	}
	return ss
}

// apply folds one record in. Records are valid (the journal checks them);
// a done without its attempt still counts: the done is the proof.
func (s *state) apply(r bus.Record) {
	key := r.Key()
	switch r.Op {
	case bus.OpAttempt:
		if _, ok := s.done[key]; ok {
			return // already proved done; a later attempt would be a bug
		}
		after := r.After
		if after == "" {
			after = s.lastDone[r.Thread]
		}
		s.attempts[key] = attempt{rec: r, after: after}
		if r.Sum != "" {
			s.sums[r.ID] = r.Sum
		}
	case bus.OpDone:
		delete(s.attempts, key)
		s.done[key] = r.Remote
		ss := s.session(r.Session)
		switch {
		case r.Part == bus.PartRoot:
			ss.root = r.Remote
			s.lastDone[""] = r.Remote
		case r.Part == bus.PartThread:
			ss.thread = r.Remote
			s.byThread[r.Remote] = r.Session
		case r.Part == bus.PartArchive:
			if !ss.closed {
				ss.closed, ss.closedAt = true, r.At
			}
		case strings.HasPrefix(r.Part, "edit:"):
			// An edit makes nothing new at the service, but the edited
			// part now belongs to this message too: a later message that
			// replaces this one edits it again.
			if k, err := strconv.Atoi(strings.TrimPrefix(r.Part, "edit:")); err == nil && k >= 0 {
				s.setText(r.ID, r.Session, k, r.Remote)
			}
		default:
			s.lastDone[r.Thread] = r.Remote
			if k, err := strconv.Atoi(r.Part); err == nil && k >= 0 {
				s.setText(r.ID, r.Session, k, r.Remote)
			}
		}
	}
}

// setText records that text part k of message id is the service's remote.
func (s *state) setText(id, session string, k int, remote string) {
	t := s.texts[id]
	t.session = session
	for len(t.ids) <= k {
		t.ids = append(t.ids, "")
	}
	t.ids[k] = remote
	s.texts[id] = t
}

// pending returns the attempt of key not known done, if there is one.
func (s *state) pending(key string) (attempt, bool) {
	a, ok := s.attempts[key]
	return a, ok
}

// firstAttempt is when an attempt was made, for the lookup.
func (a attempt) firstAttempt() time.Time { return time.UnixMilli(a.rec.At) }

// forget drops what is kept of a message that left the outbox (after a
// compaction it is gone from the journal too), except its text parts'
// ids, which a later message may replace.
func (s *state) forget(id string) {
	for key := range s.attempts {
		if strings.HasPrefix(key, id+"/") {
			delete(s.attempts, key)
		}
	}
}
