package fakediscord

import (
	"net/http"
	"strings"
	"unicode/utf8"
)

// codeUnknownEmoji is Discord's error for an emoji it does not know.
const codeUnknownEmoji = 10014

// maxEmojiRunes bounds a unicode emoji: the longest ZWJ family sequences
// are a handful of code points, nowhere near this.
const maxEmojiRunes = 16

// addReaction is PUT .../messages/{mid}/reactions/{emoji}/@me: the bot
// reacts. Adding a reaction it already added changes nothing and is 204
// again, as on Discord.
func (s *Server) addReaction(r *http.Request, token string) (int, any) {
	cid, mid, emoji, userID := r.PathValue("cid"), r.PathValue("mid"), r.PathValue("emoji"), BotUserID(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	t, m, status, body := s.messageInLocked(cid, mid)
	if m == nil {
		return status, body
	}
	m.ReactRequests++
	s.notifyLocked()
	switch {
	case !unicodeEmoji(emoji):
		return http.StatusBadRequest, apiError(codeUnknownEmoji, "Unknown Emoji")
	case t != nil && t.Archived:
		// Unlike a message, a reaction does not unarchive a thread.
		return http.StatusBadRequest, apiError(codeArchivedThread, "Thread is archived")
	}
	for _, re := range m.Reactions {
		if re.Emoji == emoji && re.UserID == userID {
			return http.StatusNoContent, nil
		}
	}
	m.Reactions = append(m.Reactions, Reaction{Emoji: emoji, UserID: userID})
	s.broadcastLocked("MESSAGE_REACTION_ADD", map[string]any{
		"user_id":           userID,
		"channel_id":        cid,
		"message_id":        mid,
		"guild_id":          s.opts.GuildID,
		"message_author_id": m.AuthorID,
		"emoji":             apiEmoji{Name: emoji},
		"burst":             false,
		"type":              0,
	})
	s.notifyLocked()
	s.logf("reaction %q added to %s in %s", emoji, mid, cid)
	return http.StatusNoContent, nil
}

// unicodeEmoji says whether s looks like one unicode emoji: pictographs and
// symbols with their joiners, variation selectors, skin tones, tags and
// regional indicators, or a keycap ("1️⃣", "#⃣"). The fake's guild has no
// custom emojis, so "name:id" and plain words are unknown, as are ASCII
// letters and punctuation.
func unicodeEmoji(s string) bool {
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > maxEmojiRunes {
		return false
	}
	keycap := strings.ContainsRune(s, 0x20E3)
	pictures := 0
	for _, r := range s {
		switch {
		case r == 0x200D, r == 0xFE0F, r == 0xFE0E, r == 0x20E3, r >= 0xE0020 && r <= 0xE007F:
			// joiner, variation selectors, keycap combiner, tag characters
		case keycap && (r == '#' || r == '*' || r >= '0' && r <= '9'):
			pictures++
		case emojiRune(r):
			pictures++
		default:
			return false
		}
	}
	return pictures > 0
}

// emojiRune covers the blocks Unicode's emoji come from.
func emojiRune(r rune) bool {
	switch r {
	case 0xA9, 0xAE, 0x203C, 0x2049, 0x2122, 0x2139, 0x24C2, 0x3030, 0x303D, 0x3297, 0x3299:
		return true
	}
	return r >= 0x2190 && r <= 0x21FF || // arrows
		r >= 0x2300 && r <= 0x23FF || // misc technical: ⌚ ⏰
		r >= 0x25A0 && r <= 0x27BF || // shapes, misc symbols, dingbats: ☀ ✅ ❤
		r >= 0x2900 && r <= 0x297F || r >= 0x2B00 && r <= 0x2BFF || // ⤴ ⭐
		r >= 0x1F000 && r <= 0x1FAFF // pictographs, emoticons, flags' regional indicators, skin tones
}
