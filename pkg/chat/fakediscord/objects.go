package fakediscord

import (
	"maps"
	"slices"
	"time"
)

// The JSON shapes below carry the fields discordgo reads; Discord sends more.

type apiUser struct {
	ID            string  `json:"id"`
	Username      string  `json:"username"`
	GlobalName    *string `json:"global_name"` // the display name; null when the user set none
	Discriminator string  `json:"discriminator"`
	Bot           bool    `json:"bot,omitempty"`
}

type apiMessage struct {
	ID              string        `json:"id"`
	Type            int           `json:"type"`
	ChannelID       string        `json:"channel_id"`
	GuildID         string        `json:"guild_id,omitempty"`
	Content         string        `json:"content"`
	Timestamp       string        `json:"timestamp"`
	Author          apiUser       `json:"author"`
	TTS             bool          `json:"tts"`
	MentionEveryone bool          `json:"mention_everyone"`
	Mentions        []apiUser     `json:"mentions"`
	MentionRoles    []string      `json:"mention_roles"`
	Attachments     []any         `json:"attachments"`
	Embeds          []any         `json:"embeds"`
	Components      []any         `json:"components"`
	Reactions       []apiReaction `json:"reactions,omitempty"` // Discord leaves it out when there are none
	Pinned          bool          `json:"pinned"`
	Flags           int           `json:"flags"`
	EditedTimestamp *string       `json:"edited_timestamp"`
	Nonce           string        `json:"nonce,omitempty"`
}

type apiReaction struct {
	Count        int            `json:"count"`
	CountDetails map[string]int `json:"count_details"`
	Me           bool           `json:"me"`
	MeBurst      bool           `json:"me_burst"`
	BurstColors  []string       `json:"burst_colors"`
	Emoji        apiEmoji       `json:"emoji"`
}

type apiEmoji struct {
	ID   *string `json:"id"` // null for a unicode emoji
	Name string  `json:"name"`
}

const (
	channelTypeText          = 0
	channelTypePublicThread  = 11
	channelTypePrivateThread = 12
)

func botUser(token string) apiUser {
	return apiUser{ID: BotUserID(token), Username: botUsername(token), Discriminator: "0", Bot: true}
}

// apiMessageLocked is a message as v sees it: Discord empties content, embeds,
// attachments and components (its buttons) for a viewer without MESSAGE_CONTENT, and
// "me" on a reaction is the viewer's own.
func (s *Server) apiMessageLocked(m Message, v viewer) apiMessage {
	a := apiMessage{
		ID:           m.ID,
		ChannelID:    m.ChannelID,
		Content:      m.Content,
		Timestamp:    m.Time.Format(time.RFC3339Nano),
		Author:       apiUser{ID: m.AuthorID, Username: m.Author, GlobalName: s.globalNameLocked(m.AuthorID), Discriminator: "0", Bot: m.Bot},
		Mentions:     []apiUser{},
		MentionRoles: []string{},
		Attachments:  []any{},
		Embeds:       []any{},
		Components:   []any{},
		Reactions:    reactionsFor(m.Reactions, v.userID),
		Flags:        m.Flags,
	}
	if v.gateway {
		a.GuildID = s.opts.GuildID
	}
	// Mentions are not content: Discord sends them either way.
	for _, id := range mentionedIDs(m.Content) {
		a.Mentions = append(a.Mentions, s.userLocked(id))
	}
	if v.seesContent(m) {
		a.Components = apiComponents(m.Rows)
		a.Attachments = s.apiAttachments(m)
	} else {
		a.Content = ""
	}
	if !m.EditedAt.IsZero() {
		edited := m.EditedAt.Format(time.RFC3339Nano)
		a.EditedTimestamp = &edited
	}
	return a
}

// apiMessageCreatedLocked is a message as the create answer and
// MESSAGE_CREATE carry it: with its nonce, which fetched messages never show.
func (s *Server) apiMessageCreatedLocked(m Message, v viewer) apiMessage {
	a := s.apiMessageLocked(m, v)
	a.Nonce = m.Nonce
	return a
}

// userLocked is the user object of a mentioned ID: as its messages show it,
// or a made-up name for someone who never wrote.
func (s *Server) userLocked(id string) apiUser {
	for i := len(s.messages) - 1; i >= 0; i-- {
		if m := s.messages[i]; m.AuthorID == id {
			return apiUser{ID: id, Username: m.Author, GlobalName: s.globalNameLocked(id), Discriminator: "0", Bot: m.Bot}
		}
	}
	for _, ss := range s.sessions {
		if BotUserID(ss.token) == id {
			return botUser(ss.token)
		}
	}
	return apiUser{ID: id, Username: "user-" + id, GlobalName: s.globalNameLocked(id), Discriminator: "0"}
}

// SetGlobalName gives a (human) user a display name, as they set it in
// Discord's profile; "" takes it away (global_name null, as for a user who
// never set one). User objects carry it from then on: authors, mentions,
// members and interactions.
func (s *Server) SetGlobalName(userID, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "" {
		delete(s.names, userID)
		return
	}
	s.names[userID] = name
}

// globalNameLocked is a user's global_name: nil (null) when none was set.
func (s *Server) globalNameLocked(id string) *string {
	if name, ok := s.names[id]; ok {
		return &name
	}
	return nil
}

// reactionsFor groups reactions by emoji, in the order each was first added.
func reactionsFor(rs []Reaction, me string) []apiReaction {
	var out []apiReaction
	index := map[string]int{}
	for _, r := range rs {
		i, ok := index[r.Emoji]
		if !ok {
			i = len(out)
			index[r.Emoji] = i
			out = append(out, apiReaction{CountDetails: map[string]int{"burst": 0, "normal": 0}, BurstColors: []string{}, Emoji: apiEmoji{Name: r.Emoji}})
		}
		out[i].Count++
		out[i].CountDetails["normal"]++
		out[i].Me = out[i].Me || r.UserID == me
	}
	return out
}

func (s *Server) textChannel(id string) map[string]any {
	return map[string]any{"id": id, "type": channelTypeText, "guild_id": s.opts.GuildID, "name": "channel-" + id, "position": 0,
		"permission_overwrites": s.overwritesLocked()}
}

func (s *Server) threadChannel(t Thread) map[string]any {
	return map[string]any{
		"id":                  t.ID,
		"type":                t.Type,
		"guild_id":            s.opts.GuildID,
		"parent_id":           t.ParentID,
		"owner_id":            t.OwnerID,
		"name":                t.Name,
		"rate_limit_per_user": 0,
		"message_count":       0,
		"member_count":        1,
		"thread_metadata": map[string]any{
			"archived":              t.Archived,
			"auto_archive_duration": t.AutoArchive,
			"archive_timestamp":     time.Now().UTC().Format(time.RFC3339),
			"locked":                t.Locked,
		},
	}
}

// guildLocked is the GUILD_CREATE body: the configured channels and the threads so far.
func (s *Server) guildLocked() map[string]any {
	channels := make([]map[string]any, 0, len(s.channels))
	for _, id := range slices.Sorted(maps.Keys(s.channels)) {
		channels = append(channels, s.textChannel(id))
	}
	threads := make([]map[string]any, 0, len(s.threads))
	for _, t := range s.threads {
		threads = append(threads, s.threadChannel(t))
	}
	return map[string]any{
		"id":           s.opts.GuildID,
		"name":         "Fake Guild",
		"unavailable":  false,
		"member_count": 1,
		"channels":     channels,
		"threads":      threads,
		"roles":        []any{},
		"emojis":       []any{},
	}
}
