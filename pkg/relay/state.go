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
}

type textIDs struct {
	session string
	ids     []string
}

type sessionState struct {
	root   string // the root message's service id; "" while not done
	thread string // the thread's id; "" while not done
	closed bool
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
		texts: map[string]textIDs{},
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
		s.attempts[key] = attempt{rec: r, after: s.lastDone[r.Thread]}
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
		case r.Part == bus.PartArchive:
			ss.closed = true
		case strings.HasPrefix(r.Part, "edit:"):
			// An edit makes nothing new at the service.
		default:
			s.lastDone[r.Thread] = r.Remote
			if k, err := strconv.Atoi(r.Part); err == nil && k >= 0 {
				t := s.texts[r.ID]
				t.session = r.Session
				for len(t.ids) <= k {
					t.ids = append(t.ids, "")
				}
				t.ids[k] = r.Remote
				s.texts[r.ID] = t
			}
		}
	}
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
