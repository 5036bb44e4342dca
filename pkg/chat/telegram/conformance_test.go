package telegram_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/chat/telegram"
	"gjc.dev/reconciler/pkg/spec"
)

const suiteChat = faketelegram.DefaultChatID

var (
	suiteUser = faketelegram.User{ID: 4200, FirstName: "Operator"}
	stranger  = faketelegram.User{ID: 4300, FirstName: "Stranger", Username: "stranger"}
)

// Telegram against faketelegram, a forum supergroup (a topic per
// session): the providers' conformance suite.
func TestConformance(t *testing.T) { providertest.Run(t, subject(true)) }

// Telegram against faketelegram, a supergroup without topics (a root
// message and its replies per session).
func TestConformanceWithoutTopics(t *testing.T) { providertest.Run(t, subject(false)) }

func subject(forum bool) providertest.Subject {
	return providertest.Subject{
		Provider: func(time.Duration) chat.Provider {
			return telegram.New(telegram.Options{Timeout: 2 * time.Second})
		},
		Config: func(url, user string) *spec.Config {
			cfg := &spec.Config{Provider: spec.ProviderTelegram, Telegram: &spec.TelegramConfig{
				BotToken: spec.NewSecret(faketelegram.DefaultToken), ChatID: strconv.FormatInt(suiteChat, 10), APIURL: url,
				PostsPerMinute: spec.MaxPostsPerMinute}} // the suite's bursts, unpaced by the service's 20 a minute
			if user != "" {
				cfg.Telegram.AuthorizedUserIDs = []string{user}
			}
			return cfg
		},
		Start: func(t *testing.T, _ time.Duration) providertest.Fake {
			f, err := faketelegram.Start(faketelegram.Options{Chats: []faketelegram.Chat{{ID: suiteChat, Forum: forum}}, Logf: t.Logf})
			providertest.Started(t, f, err)
			return fake{f: f, forum: forum}
		},
		Transport:          func(t *testing.T) providertest.TransportFake { return startTransportFake(t) },
		ThreadRequest:      forum,
		ClosesThreads:      forum,
		InboundByTransport: true,
		DoctorChecks:       []string{"bot token", "chat", "replies", "webhook", "clock"},
		RandomRun: &providertest.RandomRun{Messages: 200, Why: "every post lost at a kill costs Telegram's id probe " +
			"several edits, so the whole run takes about 7 minutes per shape on an idle 2-core machine (more under load), past CI's budget"},
	}
}

// fake is faketelegram as the suite drives it.
type fake struct {
	f     *faketelegram.Server
	forum bool
}

func (r fake) URL() string { return r.f.URL() }

func (r fake) WaitFor(ctx context.Context, cond func() bool) error {
	_, err := r.f.WaitFor(ctx, func(faketelegram.Snapshot) bool { return cond() })
	return err
}

func (r fake) HoldNext() (func(context.Context) error, func(context.Context) error) {
	h := r.f.HoldNext(faketelegram.HoldMessages) // a text or an upload
	held := func(ctx context.Context) error {
		select {
		case <-h.Arrived():
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	after := func(ctx context.Context) error {
		n := len(r.f.Snapshot().Messages)
		h.Release()
		// Stored although its client is gone: the restarted relay must
		// find it, not post it again.
		_, err := r.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return len(s.Messages) > n })
		return err
	}
	return held, after
}

func (r fake) AcceptThenFail(cut bool) {
	mode := faketelegram.Fail502
	if cut {
		mode = faketelegram.FailCut
	}
	r.f.AcceptThenFail(1, mode)
}

func (r fake) WaitPosts(ctx context.Context, n int) (int, error) {
	s, err := r.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return s.Posts > n })
	return s.Posts, err
}

// Places: each root the bot posted in General, with the topics made for
// it (one, unless one was made twice) and the texts posted in the first
// of them, those since deleted with their topic included. A topic is
// its root's by name: the relay names a topic from the session's title,
// which its root line begins with, or from the session id, which the
// root line names; the latest such root without a topic takes it.
func (r fake) Places() []providertest.Place {
	if !r.forum {
		return r.rootPlaces()
	}
	sn := r.f.Snapshot()
	var out []providertest.Place
	closed := map[string]bool{}
	for _, m := range sn.Messages {
		switch {
		case m.Chat != suiteChat || !m.From.IsBot:
		case m.Service == "" && m.Thread == 0 && !m.Deleted:
			out = append(out, providertest.Place{ID: strconv.FormatInt(m.ID, 10), Root: m.Text})
		case m.Service == faketelegram.ServiceTopicCreated:
			if p := rootOf(out, m.TopicName); p != nil {
				p.Threads++
				if p.Thread == "" {
					p.Thread, p.Name = strconv.FormatInt(m.ID, 10), m.TopicName
				}
			}
		case m.Service == faketelegram.ServiceTopicClosed:
			closed[strconv.FormatInt(m.Thread, 10)] = true
		}
	}
	for i := range out {
		out[i].Closed = closed[out[i].Thread]
		for _, m := range sn.Messages {
			if m.Chat == suiteChat && m.From.IsBot && m.Service == "" && m.Document == nil && strconv.FormatInt(m.Thread, 10) == out[i].Thread {
				out[i].Replies = append(out[i].Replies, m.Text)
			}
		}
	}
	return out
}

// rootPlaces: without topics a session's thread is its root's replies,
// nothing to make twice.
func (r fake) rootPlaces() []providertest.Place {
	sn := r.f.Snapshot()
	var out []providertest.Place
	for _, m := range sn.Messages {
		if m.Chat == suiteChat && m.From.IsBot && m.Service == "" && m.Thread == 0 && !m.Deleted {
			id := strconv.FormatInt(m.ID, 10)
			out = append(out, providertest.Place{ID: id, Thread: id, Root: m.Text, Threads: 1, Replies: sn.Texts(suiteChat, m.ID)})
		}
	}
	return out
}

func rootOf(places []providertest.Place, name string) *providertest.Place {
	var taken *providertest.Place
	for i := len(places) - 1; i >= 0; i-- {
		p := &places[i]
		if !strings.HasPrefix(p.Root, name+" · ") && !strings.Contains(p.Root, "session `"+name+"`") {
			continue
		}
		if p.Thread == "" {
			return p
		}
		if taken == nil {
			taken = p
		}
	}
	return taken
}

// Messages counts the bot's messages, texts and documents.
func (r fake) Messages() int {
	n := 0
	for _, m := range r.f.Snapshot().Messages {
		if m.Chat == suiteChat && m.From.IsBot && m.Service == "" && !m.Deleted {
			n++
		}
	}
	return n
}

func (r fake) LoseChannel(lost bool) { _ = r.f.SetBotKicked(suiteChat, lost) }

// DeletePlace deletes the session's topic, as a moderator; its root in
// General stays, as a Discord thread's starter message does. Without
// topics it deletes the root and every reply, as a moderator clearing a
// thread does.
func (r fake) DeletePlace(p providertest.Place) {
	id, err := strconv.ParseInt(p.Thread, 10, 64)
	if err != nil {
		return
	}
	if r.forum {
		_ = r.f.DeleteTopic(suiteChat, id)
		return
	}
	for _, m := range r.f.Snapshot().Posted(suiteChat, id) {
		_ = r.f.DeleteMessage(suiteChat, m.ID)
	}
	_ = r.f.DeleteMessage(suiteChat, id)
}

func (r fake) RateLimitNext(n int, retryAfter time.Duration) { r.f.RateLimitNext(n, retryAfter) }

func (r fake) User() string { return strconv.FormatInt(suiteUser.ID, 10) }

func (r fake) Reply(place, text string) (string, error) {
	thread, err := strconv.ParseInt(place, 10, 64)
	if err != nil {
		return "", err
	}
	in := faketelegram.Inbound{From: suiteUser, Thread: thread, Text: text}
	if !r.forum {
		in = faketelegram.Inbound{From: suiteUser, ReplyTo: thread, Text: text}
	}
	m, err := r.f.InjectMessage(in)
	return strconv.FormatInt(m.ID, 10), err
}

// Click: the user presses the button with data on message id; its
// answer is what the bot's answerCallbackQuery showed, an error when the
// bot did not answer within clickerPatience. The place is the message's
// own at the fake.
func (r fake) Click(ctx context.Context, _, id, user, data string) (string, error) {
	mid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return "", err
	}
	who := stranger
	if user == r.User() {
		who = suiteUser
	} else if n, err := strconv.ParseInt(user, 10, 64); err == nil && n != stranger.ID {
		who = faketelegram.User{ID: n, FirstName: "User " + user}
	}
	q, err := r.f.Click(faketelegram.Click{Chat: suiteChat, Message: mid, From: who, Data: data})
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, clickerPatience)
	defer cancel()
	a, err := r.f.AwaitAnswer(ctx, q.ID)
	return a.Text, err
}

// clickerPatience is how long the suite's clicker waits for the bot's
// answer: the 3 s Discord and Slack give a bot, well within the service's
// own time to answer a query (faketelegram.DefaultCallbackTimeout), and
// what the suite's crash cases wait out for a click nobody answers.
const clickerPatience = 3 * time.Second

// Asked: the bot's messages in the place's topic (or, without topics,
// among its root's replies) that sendMessage posted with a keyboard.
func (r fake) Asked(place string) []string {
	thread, err := strconv.ParseInt(place, 10, 64)
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range r.f.Snapshot().Posted(suiteChat, thread) {
		if m.SentKeyboard != nil {
			out = append(out, strconv.FormatInt(m.ID, 10))
		}
	}
	return out
}

// Buttons are the callback data of message id's keyboard now.
func (r fake) Buttons(_, id string) []string {
	mid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return nil
	}
	m, _ := r.f.Snapshot().Message(suiteChat, mid)
	return m.Keyboard.Data()
}

// Text is message id's text now.
func (r fake) Text(_, id string) string {
	mid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return ""
	}
	m, _ := r.f.Snapshot().Message(suiteChat, mid)
	return m.Text
}

func (r fake) Stranger() string { return strconv.FormatInt(stranger.ID, 10) }

// WaitEyes: setMessageReaction replaces the bot's reactions, so the one
// 👀 stays one however often it is asked for; n counts the requests.
func (r fake) WaitEyes(ctx context.Context, _ string, id string, n int) error {
	mid, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		return err
	}
	_, err = r.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool {
		m, ok := s.Message(suiteChat, mid)
		return ok && len(m.Reactions) == 1 && m.Reactions[0] == "👀" && m.ReactRequests == n
	})
	return err
}

// Withhold: what the fake can take away from the bot, by doctor check.
func (r fake) Withhold(check string) {
	switch check {
	case "bot token":
		r.f.SetTokenRevoked(true)
	case "chat":
		_ = r.f.SetBotKicked(suiteChat, true)
	case "replies":
		r.f.SetPrivacy(true)
		_ = r.f.SetBotAdmin(suiteChat, false)
	case "webhook":
		r.f.SetWebhook("https://example.com/hook")
	default:
		panic("faketelegram cannot withhold " + check)
	}
}

// transportFake is faketelegram as providertest.Transport drives it.
type transportFake struct{ f *faketelegram.Server }

func startTransportFake(t *testing.T) transportFake {
	t.Helper()
	f, err := faketelegram.Start(faketelegram.Options{Logf: t.Logf})
	providertest.Started(t, f, err)
	return transportFake{f}
}

func (f transportFake) Transport(t *testing.T) chat.Transport {
	cfg := &spec.TelegramConfig{BotToken: spec.NewSecret(f.f.Token()), ChatID: strconv.FormatInt(suiteChat, 10), APIURL: f.f.URL()}
	return telegram.NewTransport(cfg, telegram.TransportOptions{Log: testr.New(t), PollTimeout: time.Second, MaxBackoff: 200 * time.Millisecond})
}

// DropConnections cuts the waiting long poll, as the network does.
func (f transportFake) DropConnections() { f.f.DropConnections() }

func (f transportFake) RejectTokens() { f.f.SetTokenRevoked(true) }

func (f transportFake) MaxLive(ctx context.Context) (int, error) {
	s, err := f.f.WaitFor(ctx, func(s faketelegram.Snapshot) bool { return s.Polls.Live == 0 })
	return s.Polls.MaxLive, err
}
