package demo

import (
	"context"
	"errors"
	"regexp"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/fakeslack"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
)

// Post is one thing a fake received, as the demo shows it.
type Post struct {
	Provider string // "discord", "slack" or "telegram"
	// Session is the relay session the post belongs to, read back from
	// its root line ("... session `id`"); "" when it has none.
	Session string
	Text    string // the text as the fake stored it (for an edit, the new one)
	Edit    bool   // an earlier message edited in place
	Closed  bool   // the session's thread archived and locked (Discord), its topic closed (Telegram)
}

// rootSession finds the session id at the end of a root line.
var rootSession = regexp.MustCompile("session `([^`]+)`$")

func sessionOf(root string) string {
	if m := rootSession.FindStringSubmatch(root); m != nil {
		return m[1]
	}
	return ""
}

// DiscordPosts is what changed from prev to cur: new messages (roots in
// the parent channel, parts in threads), edits, and threads archived.
func DiscordPosts(prev, cur fakediscord.Snapshot) []Post {
	byID := make(map[string]string, len(cur.Messages)) // message id -> content
	for _, m := range cur.Messages {
		byID[m.ID] = m.Content
	}
	session := func(m fakediscord.Message) string {
		if m.ParentID == "" {
			return sessionOf(m.Content)
		}
		// A thread started from a message shares that message's ID.
		if s := sessionOf(byID[m.ChannelID]); s != "" {
			return s
		}
		if t, ok := cur.Thread(m.ChannelID); ok {
			return t.Name
		}
		return ""
	}
	var out []Post
	for i, m := range cur.Messages {
		switch {
		case i >= len(prev.Messages):
			out = append(out, Post{Provider: "discord", Session: session(m), Text: m.Content})
		case len(m.Edits) > len(prev.Messages[i].Edits):
			out = append(out, Post{Provider: "discord", Session: session(m), Text: m.Content, Edit: true})
		}
	}
	for i, t := range cur.Threads {
		was := i < len(prev.Threads) && prev.Threads[i].Archived
		if t.Archived && !was {
			s := sessionOf(byID[t.ID])
			if s == "" {
				s = t.Name
			}
			out = append(out, Post{Provider: "discord", Session: s, Closed: true})
		}
	}
	return out
}

// SlackPosts is what changed from prev to cur: new messages (roots and
// replies) and edits.
func SlackPosts(prev, cur fakeslack.Snapshot) []Post {
	roots := map[string]string{} // channel + ts -> text
	for _, m := range cur.Messages {
		if m.ThreadTS == "" {
			roots[m.Channel+"/"+m.TS] = m.Text
		}
	}
	session := func(m fakeslack.Message) string {
		if m.ThreadTS == "" {
			return sessionOf(m.Text)
		}
		return sessionOf(roots[m.Channel+"/"+m.ThreadTS])
	}
	var out []Post
	for i, m := range cur.Messages {
		switch {
		case i >= len(prev.Messages):
			out = append(out, Post{Provider: "slack", Session: session(m), Text: m.Text})
		case len(m.Edits) > len(prev.Messages[i].Edits):
			out = append(out, Post{Provider: "slack", Session: session(m), Text: m.Text, Edit: true})
		}
	}
	return out
}

// TelegramPosts is what changed from prev to cur: new messages (roots in
// General, parts in topics), edits, and topics closed. A topic's
// messages belong to the session whose root the bot posted last before
// the topic was made.
func TelegramPosts(prev, cur faketelegram.Snapshot) []Post {
	topics := map[int64]string{} // topic -> session
	last := ""
	for _, m := range cur.Messages {
		switch {
		case !m.From.IsBot:
		case m.Service == "" && m.Thread == 0:
			last = sessionOf(m.Text)
		case m.Service == faketelegram.ServiceTopicCreated:
			topics[m.ID] = last
		}
	}
	var out []Post
	for i, m := range cur.Messages {
		if !m.From.IsBot {
			continue
		}
		session := sessionOf(m.Text)
		if m.Thread != 0 {
			session = topics[m.Thread]
		}
		switch {
		case i >= len(prev.Messages) && m.Service == faketelegram.ServiceTopicClosed:
			out = append(out, Post{Provider: "telegram", Session: session, Closed: true})
		case i >= len(prev.Messages) && m.Service == "":
			out = append(out, Post{Provider: "telegram", Session: session, Text: m.Text})
		case i < len(prev.Messages) && len(m.Edits) > len(prev.Messages[i].Edits):
			out = append(out, Post{Provider: "telegram", Session: session, Text: m.Text, Edit: true})
		}
	}
	return out
}

// Watch calls show for every post any fake receives, in the order
// each fake stored them, until ctx ends (nil) or show fails (its error).
// It waits on the fakes' change notifications (WaitFor), never on a
// timer.
func (e *Env) Watch(ctx context.Context, show func(Post) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	errc := make(chan error, 3)
	go func() {
		errc <- watch(ctx, e.Discord.WaitFor, DiscordPosts, show)
	}()
	go func() {
		errc <- watch(ctx, e.Slack.WaitFor, SlackPosts, show)
	}()
	go func() {
		errc <- watch(ctx, e.Telegram.WaitFor, TelegramPosts, show)
	}()
	err := <-errc
	cancel(err)
	return errors.Join(err, <-errc, <-errc)
}

// watch diffs each snapshot against the last one shown.
func watch[S any](ctx context.Context, waitFor func(context.Context, func(S) bool) (S, error), diff func(prev, cur S) []Post, show func(Post) error) error {
	var prev S
	for {
		cur, err := waitFor(ctx, func(s S) bool { return len(diff(prev, s)) > 0 })
		if err != nil {
			if ctx.Err() != nil {
				return nil // the demo is ending, or the other watcher failed
			}
			return err
		}
		for _, p := range diff(prev, cur) {
			if err := show(p); err != nil {
				return err
			}
		}
		prev = cur
	}
}
