package spec

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
)

// Identity fingerprints the resolved provider config: the first 16 hex chars of
// sha256 over its fields joined by NUL, in the reference's order, so that a
// config the reference system would run has the reference's identity. Fields
// this project added are appended only when set, so pointing a daemon at another
// endpoint or another set of users rolls it without changing anyone else's.
func (c *Config) Identity() string {
	var values []string
	switch {
	case c.Discord != nil:
		d := c.Discord
		values = []string{d.BotToken.Reveal(), d.ApplicationID, d.GuildID, d.ParentChannelID, strconv.FormatBool(c.Redact), string(c.Verbosity)}
		values = appendAdded(values, d.AuthorizedUserIDs, d.APIURL)
	case c.Slack != nil:
		s := c.Slack
		values = []string{s.BotToken.Reveal(), s.AppToken.Reveal(), s.WorkspaceID, s.ChannelID, s.AuthorizedUserID, strconv.FormatBool(c.Redact), string(c.Verbosity)}
		values = appendAdded(values, s.AuthorizedUserIDs, s.APIURL)
	case c.Telegram != nil:
		// No reference to stay compatible with: DESIGN 3's order, the user
		// list always present (sorted, so its order rolls nothing).
		tg := c.Telegram
		ids := slices.Clone(tg.AuthorizedUserIDs)
		slices.Sort(ids)
		values = []string{tg.BotToken.Reveal(), tg.ChatID, strings.Join(ids, ","), strconv.FormatBool(c.Redact), string(c.Verbosity)}
		if tg.APIURL != "" {
			values = append(values, tg.APIURL)
		}
		// DESIGN 3: a new optional field joins only when set (here: other
		// than its default), so a spec without it keeps its identity and
		// one that changes it rolls the daemon to run at the new pace.
		if n := tg.PostsPerMinute; n != 0 && n != DefaultPostsPerMinute {
			values = append(values, "postsPerMinute="+strconv.Itoa(n))
		}
	default:
		return ""
	}
	if c.PingOnAsk {
		// Added after every provider's fields, only when set, so that a
		// spec without it keeps its identity (DESIGN 3).
		values = append(values, "pingOnAsk")
	}
	// Files (DESIGN 5, "Files"), likewise only when set: a spec without
	// them keeps its identity.
	if c.LongTextAsFile > 0 {
		values = append(values, "longTextAsFile="+strconv.Itoa(c.LongTextAsFile))
	}
	if n := c.MaxInboundFileBytes; n != 0 && n != DefaultMaxInboundFileBytes {
		values = append(values, "maxInboundFileBytes="+strconv.FormatInt(n, 10))
	}
	sum := sha256.Sum256([]byte(strings.Join(values, "\x00")))
	return hex.EncodeToString(sum[:])[:16]
}

// appendAdded appends the fields this project added to the reference's, each
// only when set, in DESIGN's order: the user list (sorted, so its order does
// not roll a daemon), then apiURL.
func appendAdded(values, userIDs []string, apiURL string) []string {
	if len(userIDs) > 0 {
		ids := slices.Clone(userIDs)
		slices.Sort(ids)
		values = append(values, strings.Join(ids, ","))
	}
	if apiURL != "" {
		values = append(values, apiURL)
	}
	return values
}
