package spec

import "slices"

// AuthorizedUsers is who may talk back to the daemon: the sorted union of the
// provider's user fields, without repeats (Slack: authorizedUserId and
// authorizedUserIds; Discord: authorizedUserIds). Empty means nobody. The
// daemon's inbound filter admits exactly these users.
func (c *Config) AuthorizedUsers() []string {
	var ids []string
	switch {
	case c.Discord != nil:
		ids = slices.Clone(c.Discord.AuthorizedUserIDs)
	case c.Telegram != nil:
		ids = slices.Clone(c.Telegram.AuthorizedUserIDs)
	case c.Slack != nil:
		ids = slices.Clone(c.Slack.AuthorizedUserIDs)
		if c.Slack.AuthorizedUserID != "" {
			ids = append(ids, c.Slack.AuthorizedUserID)
		}
	}
	// An empty entry is refused by validation; dropping it here too keeps a
	// hand-built Config from admitting a user with no id.
	ids = slices.DeleteFunc(ids, func(s string) bool { return s == "" })
	slices.Sort(ids)
	return slices.Compact(ids)
}
