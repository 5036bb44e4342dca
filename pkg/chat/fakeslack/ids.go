package fakeslack

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// nextTSLocked returns a Slack ts ("seconds.micros"): the creation time, and
// strictly increasing, because a ts is a message's identity in a channel.
func (s *Server) nextTSLocked() string {
	us := s.ts.Next(time.Now().UnixMicro())
	return fmt.Sprintf("%d.%06d", us/1e6, us%1e6)
}

// tsMicros parses a ts for ordering; ok is false for anything else.
func tsMicros(ts string) (int64, bool) {
	sec, frac, found := strings.Cut(ts, ".")
	if !found || len(frac) != 6 {
		return 0, false
	}
	a, err1 := strconv.ParseInt(sec, 10, 64)
	b, err2 := strconv.ParseInt(frac, 10, 64)
	return a*1e6 + b, err1 == nil && err2 == nil
}

// BotUserID is the user ID the fake gives a bot token: stable, so a test can
// predict the author of the bot's own messages.
func BotUserID(token string) string { return "U" + tokenHash(token) }

// BotID is the bot ID the fake gives a bot token.
func BotID(token string) string { return "B" + tokenHash(token) }

func tokenHash(token string) string {
	return strings.ToUpper(strconv.FormatUint(fakeserver.Hash(token)>>24, 36))
}

// newEnvelopeID has the shape of Slack's envelope IDs (a UUID).
func newEnvelopeID() string {
	h := fakeserver.RandomHex(16)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
