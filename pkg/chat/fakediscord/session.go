package fakediscord

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

const (
	// backlogMax bounds the dispatches kept per session for RESUME.
	backlogMax = 1000
	// sessionTTL is how long a session stays resumable without a connection.
	sessionTTL = 5 * time.Minute
)

// session outlives its connections so that RESUME can pick it up again.
type session struct {
	id        string
	token     string
	intents   int // as identified; a RESUME keeps them
	seq       int64
	backlog   []dispatch
	conn      *conn // nil while away
	awaySince time.Time
}

type dispatch struct {
	seq  int64
	data []byte
}

type dispatchPayload struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  int64           `json:"s"`
	T  string          `json:"t"`
}

func (s *Server) identify(c *conn, raw json.RawMessage) {
	var d struct {
		Token   string `json:"token"`
		Intents int    `json:"intents"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		s.closeConn(c, closeDecodeError, "Error while decoding payload.")
		return
	}
	token := strings.TrimPrefix(d.Token, "Bot ") // discordgo sends the prefix; Discord takes both

	s.mu.Lock()
	defer s.mu.Unlock()
	if c.closing {
		return
	}
	st := s.statsLocked(token)
	st.Identifies++
	st.Intents = d.Intents
	s.notifyLocked()
	if c.sess != nil || c.identifying {
		s.closeLocked(c, closeAlreadyAuthed, "Already authenticated.")
		return
	}
	c.token, c.intents = token, d.Intents
	if s.tokenOKLocked(token) && !s.spendStartLocked(token) {
		s.rejectLocked(c)
		return
	}
	if !s.admitLocked(c) {
		return
	}
	// A timer rather than a sleep keeps the read loop running, so a client
	// that gives up during the delay is gone before READY and never counts as live.
	c.identifying = s.faults.readyDelay > 0
	s.core.LaterLocked(c.Socket, s.faults.readyDelay, func() { s.readyLocked(c) })
}

// readyLocked starts a new session on c and sends READY and GUILD_CREATE.
func (s *Server) readyLocked(c *conn) {
	c.identifying = false
	if c.closing || !s.admitLocked(c) { // checked again: a fault may have come during the READY delay
		return
	}
	s.pruneSessionsLocked()
	sess := &session{id: fakeserver.RandomHex(16), token: c.token, intents: c.intents}
	s.sessions[sess.id] = sess
	s.attachLocked(c, sess)
	uid := BotUserID(c.token)
	s.dispatchLocked(sess, "READY", map[string]any{
		"v":                  9,
		"user":               botUser(c.token),
		"guilds":             []map[string]any{{"id": s.opts.GuildID, "unavailable": true}},
		"session_id":         sess.id,
		"resume_gateway_url": s.GatewayURL(),
		"shard":              [2]int{0, 1},
		"application":        map[string]any{"id": s.applicationIDLocked(c.token), "flags": s.appFlagsLocked(c.token)},
		"private_channels":   []any{},
	})
	if sess.wants("GUILD_CREATE") {
		s.dispatchLocked(sess, "GUILD_CREATE", s.guildLocked())
	}
	s.logf("READY session %s for bot %s", sess.id, uid)
	s.notifyLocked()
}

// admitLocked closes c unless its token and intents are accepted now.
func (s *Server) admitLocked(c *conn) bool {
	switch {
	case !s.tokenOKLocked(c.token):
		s.rejectLocked(c)
		return false
	case !s.intentsAllowedLocked(c.token, c.intents):
		s.logf("IDENTIFY asked for MESSAGE_CONTENT, which the app lacks")
		s.closeLocked(c, closeDisallowedIntents, "Disallowed intent(s).")
		return false
	}
	return true
}

// resumeData is a RESUME's d.
type resumeData struct {
	Token     string `json:"token"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

func (s *Server) resume(c *conn, raw json.RawMessage) {
	var d resumeData
	if err := json.Unmarshal(raw, &d); err != nil {
		s.closeConn(c, closeDecodeError, "Error while decoding payload.")
		return
	}
	d.Token = strings.TrimPrefix(d.Token, "Bot ")

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holdResumeLocked(c, d) {
		return
	}
	s.resumeLocked(c, d)
}

// resumeLocked answers a RESUME: the missed dispatches then RESUMED, or
// op 9 when the session cannot be resumed.
func (s *Server) resumeLocked(c *conn, d resumeData) {
	token := d.Token
	if c.closing {
		return
	}
	if c.sess != nil || c.identifying {
		s.closeLocked(c, closeAlreadyAuthed, "Already authenticated.")
		return
	}
	c.token = token
	if !s.tokenOKLocked(token) {
		s.rejectLocked(c)
		return
	}
	sess := s.sessions[d.SessionID]
	if sess == nil || sess.token != token || !sess.canReplayAfter(d.Seq) {
		// d:false tells the client not to try RESUME again; discordgo
		// answers with IDENTIFY on the same connection.
		s.logf("RESUME of %q refused: invalid session", d.SessionID)
		s.sendLocked(c, control{Op: opInvalidSession, D: false})
		return
	}
	if old := sess.conn; old != nil {
		// The client has moved on; the old socket is a zombie.
		s.detachLocked(old)
		old.Abort()
	}
	s.attachLocked(c, sess)
	s.statsLocked(token).Resumes++
	from := d.Seq
	if s.faults.replayAll {
		s.faults.replayAll, from = false, 1 // READY, the session's seq 1, is never replayed
	}
	for _, e := range sess.backlog {
		if e.seq > from {
			s.sendRawLocked(c, e.data)
		}
	}
	s.dispatchLocked(sess, "RESUMED", map[string]any{})
	s.logf("RESUMED session %s at seq %d", sess.id, d.Seq)
	s.notifyLocked()
}

// canReplayAfter says whether every dispatch after seq is still in the backlog.
func (ss *session) canReplayAfter(seq int64) bool {
	if seq > ss.seq || seq < 0 {
		return false
	}
	return len(ss.backlog) == 0 || ss.backlog[0].seq <= seq+1
}

// endSession forgets the session of a connection its client closed on purpose.
func (s *Server) endSession(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case c.sess != nil:
		delete(s.sessions, c.sess.id)
		s.detachLocked(c)
		s.notifyLocked()
	case c.swept != nil && c.swept.conn == nil && c.swept.awaySince.Equal(c.sweptAt):
		// A sweep saw the socket gone before its close frame was read: the
		// close still ends the session, unless it was resumed meanwhile
		// (and maybe left again: then it is away since another time).
		delete(s.sessions, c.swept.id)
		s.notifyLocked()
	}
}

func (s *Server) attachLocked(c *conn, sess *session) {
	s.sweepLocked(c)
	c.sess = sess
	sess.conn = c
	s.statsLocked(c.token).Up()
}

// detachLocked takes c's session off the air (the session stays
// resumable) and sends nothing more on c: c is closing or gone.
func (s *Server) detachLocked(c *conn) {
	c.closing = true
	if c.sess == nil {
		return
	}
	if c.sess.conn == c {
		c.sess.conn = nil
		c.sess.awaySince = time.Now()
	}
	c.sess = nil
	s.statsLocked(c.token).Live--
}

func (s *Server) pruneSessionsLocked() {
	for id, sess := range s.sessions {
		if sess.conn == nil && time.Since(sess.awaySince) > sessionTTL {
			delete(s.sessions, id)
		}
	}
}

// dispatchLocked numbers an event for one session, keeps it for RESUME and
// sends it if the session is live.
func (s *Server) dispatchLocked(sess *session, event string, d any) {
	raw, ok := d.(json.RawMessage)
	if !ok {
		raw = fakeserver.MustMarshal(d)
	}
	sess.seq++
	b := fakeserver.MustMarshal(dispatchPayload{Op: opDispatch, D: raw, S: sess.seq, T: event})
	sess.backlog = append(sess.backlog, dispatch{seq: sess.seq, data: b})
	if n := len(sess.backlog); n > backlogMax {
		sess.backlog = slices.Delete(sess.backlog, 0, n-backlogMax)
	}
	if sess.conn != nil && !sess.conn.deaf {
		s.sendRawLocked(sess.conn, b)
	}
}

// broadcastLocked dispatches an event to every session (there is one
// guild) that identified with the intent it needs.
func (s *Server) broadcastLocked(event string, d any) {
	raw := fakeserver.MustMarshal(d)
	for _, sess := range s.sessions {
		if sess.wants(event) {
			s.dispatchLocked(sess, event, json.RawMessage(raw))
		}
	}
}

// broadcastMessageLocked dispatches MESSAGE_CREATE or MESSAGE_UPDATE, built
// for each session: what it may see of the content depends on its intents
// and on who wrote the message. The backlog keeps each session's own copy,
// so a RESUME replays what that session was due.
func (s *Server) broadcastMessageLocked(event string, m Message) {
	for _, sess := range s.sessions {
		if !sess.wants(event) {
			continue
		}
		var a apiMessage
		if event == "MESSAGE_CREATE" {
			a = s.apiMessageCreatedLocked(m, sessionViewer(sess))
		} else {
			a = s.apiMessageLocked(m, sessionViewer(sess))
		}
		s.dispatchLocked(sess, event, a)
	}
}

// sweepLocked takes off the air each connection other than except whose peer
// has already gone: the live counts are exact at every look, not only once
// each reader has seen its EOF.
func (s *Server) sweepLocked(except *conn) {
	for o := range s.conns {
		if o != except && o.sess != nil && o.Gone() {
			o.swept = o.sess
			s.detachLocked(o)
			o.sweptAt = o.swept.awaySince
			s.notifyLocked()
		}
	}
}
