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
	// staged maps a file part's key to the token its Stage recorded,
	// until the part is done.
	staged map[string]string
}

type textIDs struct {
	session string
	thread  string // where the parts are: an edit elsewhere cannot reach them
	ids     []string
}

type sessionState struct {
	root   string // the root message's service id; "" while not done
	thread string // the thread's id; "" while not done
	closed bool
	// closedAt is when the close was confirmed (the archive's done
	// record), unix ms; 0 if the record has no time.
	closedAt int64
	// gen is the generation of the session's place: 0 as first made,
	// then one more each time a moderator deleted it and the relay made
	// it again (bus.PlacePart). An attempt of a later generation's root
	// is the journal's proof that the earlier place is gone.
	gen int
	// rootText and name are the root line and thread name the place was
	// first made with: a place made again is named as before.
	rootText, name string
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
		staged: map[string]string{},
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
		if base, gen, ok := bus.ParsePlacePart(r.Part); ok {
			s.place(r, base, gen)
		}
		after := r.After
		if after == "" {
			after = s.lastDone[r.Thread]
		}
		s.attempts[key] = attempt{rec: r, after: after}
		if r.Sum != "" {
			s.sums[r.ID] = r.Sum
		}
	case bus.OpStage:
		if _, ok := s.done[key]; !ok {
			s.staged[key] = r.Remote
		}
	case bus.OpDone:
		delete(s.attempts, key)
		delete(s.staged, key)
		s.done[key] = r.Remote
		ss := s.session(r.Session)
		base, gen, place := bus.ParsePlacePart(r.Part)
		switch {
		case place && base == bus.PartRoot:
			s.lastDone[""] = r.Remote
			if s.place(r, base, gen) {
				ss.root = r.Remote
			}
		case place:
			s.byThread[r.Remote] = r.Session
			if s.place(r, base, gen) {
				ss.thread = r.Remote
			}
		case r.Part == bus.PartArchive:
			if !ss.closed {
				ss.closed, ss.closedAt = true, r.At
			}
		case strings.HasPrefix(r.Part, "edit:"):
			// An edit makes nothing new at the service, but the edited
			// part now belongs to this message too: a later message that
			// replaces this one edits it again.
			if k, err := strconv.Atoi(strings.TrimPrefix(r.Part, "edit:")); err == nil && k >= 0 {
				s.setText(r.ID, r.Session, r.Thread, k, r.Remote)
			}
		default:
			s.lastDone[r.Thread] = r.Remote
			if k, err := strconv.Atoi(r.Part); err == nil && k >= 0 {
				s.setText(r.ID, r.Session, r.Thread, k, r.Remote)
			}
		}
	}
}

// place folds in a record of a session's root or thread (base) of
// generation gen, and reports whether it is of the session's current
// place. A later generation than the session's means the place before it
// is gone: forgotten, so that the new one is made. The texts the place
// was first made with are kept, to name a new one as before.
func (s *state) place(r bus.Record, base string, gen int) bool {
	ss := s.session(r.Session)
	if gen < ss.gen {
		return false // a place since deleted and made again
	}
	if gen > ss.gen {
		ss.gen, ss.root, ss.thread = gen, "", ""
	}
	switch {
	case r.Text == "":
	case base == bus.PartRoot && gen == 0:
		ss.rootText = r.Text
	case base == bus.PartThread:
		ss.name = r.Text
	}
	return true
}

// setText records that text part k of message id is the service's remote,
// in thread.
func (s *state) setText(id, session, thread string, k int, remote string) {
	t := s.texts[id]
	t.session, t.thread = session, thread
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
	for key := range s.staged {
		if strings.HasPrefix(key, id+"/") {
			delete(s.staged, key)
		}
	}
}
