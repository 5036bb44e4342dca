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
		if len(d.AuthorizedUserIDs) > 0 {
			ids := slices.Clone(d.AuthorizedUserIDs)
			slices.Sort(ids)
			values = append(values, strings.Join(ids, ","))
		}
		if d.APIURL != "" {
			values = append(values, d.APIURL)
		}
	case c.Slack != nil:
		s := c.Slack
		values = []string{s.BotToken.Reveal(), s.AppToken.Reveal(), s.WorkspaceID, s.ChannelID, s.AuthorizedUserID, strconv.FormatBool(c.Redact), string(c.Verbosity)}
		if s.APIURL != "" {
			values = append(values, s.APIURL)
		}
	default:
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(values, "\x00")))
	return hex.EncodeToString(sum[:])[:16]
}
