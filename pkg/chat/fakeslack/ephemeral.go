package fakeslack

import (
	"net/http"
	"net/url"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// Ephemeral is a message only one user saw: never stored in the channel,
// in no history and no event.
type Ephemeral struct {
	Channel  string
	ThreadTS string // the thread it showed in, "" for the channel
	User     string // the one who saw it
	Text     string
	TS       string // the message_ts Slack answered with ("" via a response_url)
	// Via is "chat.postEphemeral" or "response_url".
	Via string
}

// responseURL is one interaction's response_url.
type responseURL struct {
	channel, user, thread string
	uses                  int
	expires               time.Time
}

// postEphemeralLocked answers chat.postEphemeral: the message recorded
// for the user (in the thread thread_ts names), answered with its
// message_ts; nothing is stored in the channel.
func (s *Server) postEphemeralLocked(_ string, form url.Values) map[string]any {
	channel, user, text := form.Get("channel"), form.Get("user"), form.Get("text")
	if e := s.writeErrLocked(channel); e != "" {
		return fail(e)
	}
	if user == "" {
		return fail("user_not_in_channel")
	}
	if e := checkText(text, form); e != "" {
		return fail(e)
	}
	if _, _, be := parseBlocks(form.Get("blocks")); be != nil {
		return be.answer()
	}
	thread, ok := s.threadLocked(channel, form.Get("thread_ts"))
	if !ok {
		return fail("thread_not_found")
	}
	ts := s.nextTSLocked()
	s.ephemerals = append(s.ephemerals, Ephemeral{Channel: channel, ThreadTS: thread, User: user, Text: text, TS: ts, Via: "chat.postEphemeral"})
	s.logf("ephemeral message to %s in %s", user, channel)
	s.notifyLocked()
	return map[string]any{"ok": true, "message_ts": ts}
}

// serveResponseURL answers a POST to an interaction's response_url: a
// JSON message with response_type ephemeral (the default) is shown to the
// clicker, in the thread of the clicked message; at most 5 times within
// 30 minutes (used_url, expired_url after). Not emulated (answered 400):
// in_channel, replace_original, delete_original.
func (s *Server) serveResponseURL(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Text            string `json:"text"`
		ResponseType    string `json:"response_type"`
		ThreadTS        string `json:"thread_ts"`
		ReplaceOriginal bool   `json:"replace_original"`
		DeleteOriginal  bool   `json:"delete_original"`
	}
	if err := fakeserver.ReadJSON(r, &body); err != nil {
		writeJSON(w, http.StatusBadRequest, fail("invalid_payload"))
		return
	}
	status, answer := s.respond(r.PathValue("id"), body.Text, body.ThreadTS,
		body.ReplaceOriginal || body.DeleteOriginal || (body.ResponseType != "" && body.ResponseType != "ephemeral"))
	writeJSON(w, status, answer) // not under the lock: the request log takes it
}

// respond shows text to the clicker of the interaction whose response_url
// path is id; other is a kind of answer the fake does not emulate.
func (s *Server) respond(id, text, threadTS string, other bool) (int, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.responseURLs[id]
	switch {
	case u == nil:
		return http.StatusNotFound, fail("invalid_url")
	case time.Now().After(u.expires):
		return http.StatusNotFound, fail("expired_url")
	case u.uses >= responseURLUses:
		return http.StatusNotFound, fail("used_url")
	case other:
		return http.StatusBadRequest, fail("fakeslack_not_emulated")
	case text == "":
		return http.StatusBadRequest, fail("no_text")
	}
	u.uses++
	thread := u.thread
	if threadTS != "" {
		thread = threadTS
	}
	s.ephemerals = append(s.ephemerals, Ephemeral{Channel: u.channel, ThreadTS: thread, User: u.user, Text: text, Via: "response_url"})
	s.notifyLocked()
	return http.StatusOK, map[string]any{"ok": true}
}
