package fakediscord_test

import (
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat/fakediscord"
)

const otherBot = "400000000000000001"

// inbound is one discordgo session with its events in the order discordgo
// handled them (SyncEvents), so an event seen proves every earlier one was
// handled.
type inbound struct {
	s       *discordgo.Session
	created chan *discordgo.MessageCreate
	updated chan *discordgo.MessageUpdate
	threads chan *discordgo.ThreadCreate
}

func openInbound(t *testing.T, f *fakediscord.Server, tok string, intents discordgo.Intent) *inbound {
	t.Helper()
	in := &inbound{
		s:       newSession(t, f, tok),
		created: make(chan *discordgo.MessageCreate, 100),
		updated: make(chan *discordgo.MessageUpdate, 100),
		threads: make(chan *discordgo.ThreadCreate, 100),
	}
	in.s.SyncEvents = true
	in.s.Identify.Intents = intents
	in.s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { in.created <- m })
	in.s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageUpdate) { in.updated <- m })
	in.s.AddHandler(func(_ *discordgo.Session, c *discordgo.ThreadCreate) { in.threads <- c })
	if err := open(t, in.s); err != nil {
		t.Fatalf("Open with intents %d: %v", intents, err)
	}
	return in
}

// closeAll closes sessions at once: discordgo's Close waits a second for
// the server's close frame.
func closeAll(t *testing.T, ss ...*discordgo.Session) {
	t.Helper()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() { closeSession(t, s) })
	}
	wg.Wait()
}

// next returns the next MESSAGE_CREATE, failing on anything else first.
func (in *inbound) next(t *testing.T) *discordgo.MessageCreate {
	t.Helper()
	select {
	case m := <-in.created:
		return m
	case <-time.After(waitLimit):
		t.Fatal("no MESSAGE_CREATE")
		return nil
	}
}

// quiet fails if MESSAGE_CREATE or MESSAGE_UPDATE was handled before the
// THREAD_CREATE the fake sends after them.
func (in *inbound) quiet(t *testing.T, name string) {
	t.Helper()
	receive(t, in.threads, "THREAD_CREATE sentinel", func(c *discordgo.ThreadCreate) bool { return c.Name == name })
	select {
	case m := <-in.created:
		t.Fatalf("MESSAGE_CREATE %q reached a session without GUILD_MESSAGES", m.Content)
	case m := <-in.updated:
		t.Fatalf("MESSAGE_UPDATE %q reached a session without GUILD_MESSAGES", m.Content)
	default:
	}
}

func TestIntentsAndMessageContent(t *testing.T) {
	t.Parallel()
	const (
		full  = "token-full"  // GUILD_MESSAGES and MESSAGE_CONTENT
		plain = "token-plain" // GUILD_MESSAGES only: what the relay identifies with without inbound
		blind = "token-blind" // GUILDS only
	)
	f := start(t, fakediscord.Options{Tokens: []string{full, plain, blind}, Channels: []string{channel}})
	msgs := discordgo.IntentsGuilds | discordgo.IntentsGuildMessages
	a := openInbound(t, f, full, msgs|discordgo.IntentMessageContent)
	b := openInbound(t, f, plain, msgs)
	c := openInbound(t, f, blind, discordgo.IntentsGuilds)
	t.Cleanup(func() { closeAll(t, a.s, b.s, c.s) })
	snap := f.Snapshot()
	for tok, want := range map[string]discordgo.Intent{full: msgs | discordgo.IntentMessageContent, plain: msgs, blind: discordgo.IntentsGuilds} {
		if got := snap.Tokens[tok].Intents; got != int(want) {
			t.Errorf("TokenStats[%s].Intents = %d, want %d", tok, got, want)
		}
	}

	th, err := b.s.ThreadStart(channel, "session-1", discordgo.ChannelTypeGuildPublicThread, 60)
	if err != nil {
		t.Fatal(err)
	}
	own, err := b.s.ChannelMessageSend(th.ID, "the bot's own words")
	if err != nil {
		t.Fatal(err)
	}
	human, err := f.InjectMessage(th.ID, user, "a human reply")
	if err != nil {
		t.Fatal(err)
	}
	mention, err := f.InjectMessage(th.ID, user, "hey <@"+fakediscord.BotUserID(plain)+"> look")
	if err != nil {
		t.Fatal(err)
	}
	bot, err := f.InjectBotMessage(th.ID, otherBot, "bot chatter")
	if err != nil {
		t.Fatal(err)
	}

	type want struct {
		id, content, author string
		bot                 bool
	}
	order := []want{
		{own.ID, "the bot's own words", fakediscord.BotUserID(plain), true},
		{human.ID, "a human reply", user, false},
		{mention.ID, mention.Content, user, false},
		{bot.ID, "bot chatter", otherBot, true},
	}
	check := func(in *inbound, name string, hidden map[string]bool) {
		t.Helper()
		for _, w := range order {
			m := in.next(t)
			content := w.content
			if hidden[w.id] {
				content = ""
			}
			if m.ID != w.id || m.Content != content || m.Author == nil || m.Author.ID != w.author || m.Author.Bot != w.bot ||
				m.Author.Username == "" || m.ChannelID != th.ID || m.GuildID != f.GuildID() || m.Type != discordgo.MessageTypeDefault ||
				time.Since(m.Timestamp) > time.Minute || m.Embeds == nil || m.Attachments == nil {
				t.Fatalf("%s got %+v (author %+v), want %+v with content %q", name, m.Message, m.Author, w, content)
			}
		}
	}
	check(a, "MESSAGE_CONTENT session", nil)
	check(b, "session without MESSAGE_CONTENT", map[string]bool{human.ID: true, bot.ID: true})
	if _, err := b.s.ThreadStart(channel, "sentinel-1", discordgo.ChannelTypeGuildPublicThread, 60); err != nil {
		t.Fatal(err)
	}
	c.quiet(t, "sentinel-1")

	t.Run("a mention lists the bot", func(t *testing.T) {
		hist, err := b.s.ChannelMessages(th.ID, 1, "", human.ID, "")
		if err != nil || len(hist) != 1 || len(hist[0].Mentions) != 1 || hist[0].Mentions[0].ID != fakediscord.BotUserID(plain) || !hist[0].Mentions[0].Bot {
			t.Fatalf("history after the human reply = %+v, %v", hist, err)
		}
	})

	t.Run("edits follow the same rule", func(t *testing.T) {
		if err := f.EditInjected(th.ID, human.ID, "a human reply, edited"); err != nil {
			t.Fatal(err)
		}
		for _, x := range []struct {
			in      *inbound
			content string
		}{{a, "a human reply, edited"}, {b, ""}} {
			u := receive(t, x.in.updated, "MESSAGE_UPDATE", func(*discordgo.MessageUpdate) bool { return true })
			if u.ID != human.ID || u.Content != x.content || u.EditedTimestamp == nil || u.Author == nil || u.Author.ID != user ||
				u.GuildID != f.GuildID() || u.ChannelID != th.ID {
				t.Fatalf("MESSAGE_UPDATE = %+v, want content %q and an edited_timestamp", u.Message, x.content)
			}
		}
		if _, err := b.s.ThreadStart(channel, "sentinel-2", discordgo.ChannelTypeGuildPublicThread, 60); err != nil {
			t.Fatal(err)
		}
		c.quiet(t, "sentinel-2")
		m := f.Snapshot().In(th.ID)[1]
		if m.Content != "a human reply, edited" || len(m.Edits) != 1 || m.Edits[0] != "a human reply" || m.EditedAt.IsZero() {
			t.Fatalf("edited message stored as %+v", m)
		}
		got, err := b.s.ChannelMessage(th.ID, human.ID)
		if err != nil || got.Content != "a human reply, edited" || got.EditedTimestamp == nil {
			t.Fatalf("GET of the edited message = %+v, %v", got, err)
		}
		if err := f.EditInjected(th.ID, own.ID, "not mine to edit"); err == nil {
			t.Fatal("EditInjected changed a message the bot posted")
		}
		if err := f.EditInjected(th.ID, "1", "x"); err == nil {
			t.Fatal("EditInjected of an unknown message succeeded")
		}
	})

	t.Run("a resumed session gets its own view of what it missed", func(t *testing.T) {
		f.DropConnections()
		away, err := f.InjectMessage(th.ID, user, "while away")
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, f, "both resumed", func(sn fakediscord.Snapshot) bool {
			return sn.Tokens[full].Resumes == 1 && sn.Tokens[plain].Resumes == 1
		})
		if m := a.next(t); m.ID != away.ID || m.Content != "while away" {
			t.Fatalf("MESSAGE_CONTENT session replayed %+v", m.Message)
		}
		if m := b.next(t); m.ID != away.ID || m.Content != "" || m.Author.ID != user {
			t.Fatalf("session without MESSAGE_CONTENT replayed %+v", m.Message)
		}
	})

	t.Run("REST follows the app's approval", func(t *testing.T) {
		hist, err := b.s.ChannelMessages(th.ID, 10, "", "", "")
		if err != nil || len(hist) != 5 || hist[3].Content != "a human reply, edited" || hist[1].Content != "bot chatter" {
			t.Fatalf("approved app's history = %v, %v", contents(hist), err)
		}
		if hist[0].GuildID != "" || hist[0].ChannelID != th.ID || hist[0].Type != discordgo.MessageTypeDefault || hist[0].Author.Username != "user-"+user {
			t.Fatalf("REST message %+v: Discord sends guild_id only on the gateway", hist[0])
		}
		f.SetMessageContentIntent(plain, false)
		if hist, err = b.s.ChannelMessages(th.ID, 10, "", "", ""); err != nil {
			t.Fatal(err)
		}
		wantContents := []string{"", "", mention.Content, "", "the bot's own words"}
		if got := contents(hist); !slices.Equal(got, wantContents) {
			t.Fatalf("unapproved app's history = %q, want %q", got, wantContents)
		}
		if !hist[1].Author.Bot || hist[1].Author.ID != otherBot || hist[3].Author.Bot {
			t.Fatalf("authors %+v %+v", hist[1].Author, hist[3].Author)
		}
		if got, err := b.s.ChannelMessage(th.ID, human.ID); err != nil || got.Content != "" || got.ID != human.ID {
			t.Fatalf("unapproved GET of a human's message = %+v, %v", got, err)
		}
		// Another app still sees everything.
		if got, err := a.s.ChannelMessage(th.ID, human.ID); err != nil || got.Content != "a human reply, edited" {
			t.Fatalf("approved app's GET = %+v, %v", got, err)
		}
		_, err = b.s.ChannelMessage(th.ID, "1")
		wantREST(t, err, http.StatusNotFound, discordgo.ErrCodeUnknownMessage)
	})
}

func TestDisallowedIntent(t *testing.T) {
	t.Parallel()
	f := start(t, fakediscord.Options{Tokens: []string{token}, Channels: []string{channel}})
	f.SetMessageContentIntent(token, false)
	s := newSession(t, f, token)
	s.ShouldReconnectOnError = false
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentMessageContent
	err := open(t, s)
	ce, ok := errors.AsType[*websocket.CloseError](err)
	if !ok || ce.Code != 4014 || ce.Text != "Disallowed intent(s)." {
		t.Fatalf("Open = %v, want close 4014 Disallowed intent(s).", err)
	}
	if st := f.Snapshot().Tokens[token]; st.Live != 0 || st.MaxLive != 0 || st.Intents != int(s.Identify.Intents) {
		t.Fatalf("stats %+v", st)
	}

	// Without the privileged intent the same token connects.
	s.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages
	if err := open(t, s); err != nil {
		t.Fatalf("Open without MESSAGE_CONTENT: %v", err)
	}
	waitFor(t, f, "a live session", func(sn fakediscord.Snapshot) bool { return sn.Tokens[token].Live == 1 })
	closeSession(t, s)

	// Approved, it may ask again.
	f.SetMessageContentIntent(token, true)
	s2 := newSession(t, f, token)
	s2.Identify.Intents = discordgo.IntentsGuilds | discordgo.IntentsGuildMessages | discordgo.IntentMessageContent
	if err := open(t, s2); err != nil {
		t.Fatalf("Open once approved: %v", err)
	}
	closeSession(t, s2)
}
