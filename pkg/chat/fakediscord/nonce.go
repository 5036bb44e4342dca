package fakediscord

import (
	"encoding/json"
	"time"
)

// DefaultNonceWindow is how long the fake keeps a nonce unique for
// enforce_nonce. Discord documents only "the past few minutes".
const DefaultNonceWindow = 5 * time.Minute

// maxNonceLen is Discord's limit on a nonce string.
const maxNonceLen = 25

// nonceUse is one nonce as a message used it.
type nonceUse struct {
	messageID string
	at        time.Time
}

// parseNonce reads a nonce: Discord takes a string of up to 25 characters
// or an integer. ok is false for anything else.
func parseNonce(raw json.RawMessage) (nonce string, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if err := json.Unmarshal(raw, &nonce); err == nil {
		return nonce, len(nonce) <= maxNonceLen
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if _, err := n.Int64(); err == nil {
			return n.String(), true
		}
	}
	return "", false
}

// nonceHitLocked returns the message an author already created with this
// nonce inside the window, if enforce_nonce applies.
func (s *Server) nonceHitLocked(authorID, nonce string) (Message, bool) {
	use, ok := s.nonces[authorID+"\x00"+nonce]
	if !ok || time.Since(use.at) > s.opts.NonceWindow {
		return Message{}, false
	}
	for _, m := range s.messages {
		if m.ID == use.messageID {
			return m, true
		}
	}
	return Message{}, false
}

func (s *Server) rememberNonceLocked(m Message) {
	if m.Nonce == "" {
		return
	}
	now := time.Now()
	for k, use := range s.nonces { // keep the map as small as the window
		if now.Sub(use.at) > s.opts.NonceWindow {
			delete(s.nonces, k)
		}
	}
	s.nonces[m.AuthorID+"\x00"+m.Nonce] = nonceUse{messageID: m.ID, at: now}
}
