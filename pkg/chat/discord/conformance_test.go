package discord_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/discord"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/spec"
)

const (
	suiteToken  = "crash-bot-token"
	suiteParent = "200000000000000077"
	suiteUser   = "300000000000000001"
)

// Discord against fakediscord: the providers' conformance suite.
func TestConformance(t *testing.T) {
	providertest.Run(t, providertest.Subject{
		Provider: func(nonceWindow time.Duration) chat.Provider {
			return discord.New(discord.Options{Timeout: 2 * time.Second, NonceWindow: nonceWindow})
		},
		Config: func(url, user string) *spec.Config {
			cfg := &spec.Config{Provider: spec.ProviderDiscord, Discord: &spec.DiscordConfig{BotToken: spec.NewSecret(suiteToken),
				ApplicationID: fakediscord.ApplicationID(suiteToken), GuildID: fakediscord.DefaultGuildID, ParentChannelID: suiteParent, APIURL: url}}
			if user != "" {
				cfg.Discord.AuthorizedUserIDs = []string{user}
			}
			return cfg
		},
		Start:         startFake,
		Transport:     newTransportFake,
		NonceWindow:   true,
		ThreadRequest: true,
		ClosesThreads: true,
		DoctorChecks: []string{"token", "application", "intents", "channel",
			"permission View Channel", "permission Send Messages", "permission Create Public Threads",
			"permission Send Messages in Threads", "permission Manage Threads", "permission Add Reactions",
			"permission Read Message History", "clock"},
	})
}

// fake is fakediscord as the suite drives it.
type fake struct {
	providertest.Served[fakediscord.Snapshot]
	f *fakediscord.Server
}

// startFake starts the fake; nonceWindow, when set, is its window too,
// so a re-post past it doubles, as on Discord.
func startFake(t *testing.T, nonceWindow time.Duration) providertest.Fake {
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{suiteToken}, Channels: []string{suiteParent}, NonceWindow: nonceWindow})
	providertest.Started(t, f, err)
	return fake{providertest.Served[fakediscord.Snapshot]{Srv: f, Channel: suiteParent, UserID: suiteUser}, f}
}

func (r fake) HoldNext() (func(context.Context) error, func(context.Context) error) {
	r.f.HoldPosts()
	held := func(ctx context.Context) error {
		_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Held > 0 })
		return err
	}
	after := func(ctx context.Context) error {
		// The fake notices the client's connection closed, and drops it.
		_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Held == 0 })
		r.f.Release()
		return err
	}
	return held, after
}

func (r fake) AcceptThenFail(cut bool) {
	mode := fakediscord.FailBadGateway
	if cut {
		mode = fakediscord.FailCut
	}
	r.f.AcceptThenFail(1, mode)
}

func (r fake) WaitPosts(ctx context.Context, n int) (int, error) {
	s, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Posts > n })
	return s.Posts, err
}

func (r fake) Places() []providertest.Place {
	s := r.f.Snapshot()
	var out []providertest.Place
	for _, m := range s.In(suiteParent) {
		p := providertest.Place{ID: m.ID, Root: m.Content}
		for _, th := range s.Threads {
			if th.StarterID == m.ID {
				p.Threads++
				p.Thread, p.Name, p.Closed = th.ID, th.Name, th.Archived && th.Locked
				for _, r := range s.In(th.ID) {
					p.Replies = append(p.Replies, r.Content)
				}
			}
		}
		out = append(out, p)
	}
	return out
}

func (r fake) Messages() int { return len(r.f.Snapshot().Messages) }

func (r fake) DeletePlace(p providertest.Place) { r.f.SetChannelUnknown(p.Thread, true) }

func (r fake) Reply(place, text string) (string, error) {
	m, err := r.f.InjectMessage(place, suiteUser, text)
	return m.ID, err
}

func (r fake) WaitEyes(ctx context.Context, place, id string, n int) error {
	_, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool {
		for _, m := range s.In(place) {
			if m.ID == id {
				return len(m.Reactions) == n && m.ReactRequests == n
			}
		}
		return false
	})
	return err
}

// suiteStranger is a guild member who is not authorized.
const suiteStranger = "300000000000000999"

func (r fake) Stranger() string { return suiteStranger }

// Click clicks as user in Discord's client would, and returns the text of
// the bot's answer once it acknowledged the interaction ("" for an answer
// without one), or an error when it did not within Discord's deadline.
func (r fake) Click(ctx context.Context, place, id, user, data string) (string, error) {
	// Discord hands a click to the bot's sessions that are there: wait
	// for one (a restarted daemon's transport may still be connecting).
	if _, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { return s.Tokens[suiteToken].Live > 0 }); err != nil {
		return "", fmt.Errorf("no gateway session of the bot to deliver the click to: %w", err)
	}
	in, err := r.f.Click(place, id, user, data)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, fakediscord.DefaultInteractionDeadline)
	defer cancel()
	answer := func(s fakediscord.Snapshot) (fakediscord.Answer, bool) {
		i, _ := s.Interaction(in.ID)
		return i.Acknowledged()
	}
	s, err := r.f.WaitFor(ctx, func(s fakediscord.Snapshot) bool { _, ok := answer(s); return ok })
	if err != nil {
		return "", fmt.Errorf("the bot did not answer click %s within Discord's deadline: %w", in.ID, err)
	}
	a, _ := answer(s)
	return a.Content, nil
}

// message is message id in place now; the zero Message when there is none.
func (r fake) message(place, id string) fakediscord.Message {
	for _, m := range r.f.Snapshot().In(place) {
		if m.ID == id {
			return m
		}
	}
	return fakediscord.Message{}
}

// Asked are the messages in place posted with buttons, oldest first.
func (r fake) Asked(place string) []string {
	var ids []string
	for _, m := range r.f.Snapshot().In(place) {
		if len(m.PostedRows) > 0 {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

func (r fake) Buttons(place, id string) []string { return r.message(place, id).Buttons() }

func (r fake) Text(place, id string) string { return r.message(place, id).Content }

// transportFake is fakediscord as providertest.Transport drives it.
type transportFake struct {
	providertest.ServedTransport[fakediscord.Snapshot]
	srv *fakediscord.Server
}

func newTransportFake(t *testing.T) providertest.TransportFake {
	t.Helper()
	srv, err := fakediscord.Start(fakediscord.Options{Tokens: []string{"tok-d"}, Channels: []string{"chan-3"}, HeartbeatInterval: 200 * time.Millisecond})
	providertest.Started(t, srv, err)
	conns := func(s fakediscord.Snapshot) (int, int) { return s.Tokens["tok-d"].Live, s.Tokens["tok-d"].MaxLive }
	return transportFake{providertest.ServedTransport[fakediscord.Snapshot]{Srv: srv, Token: "tok-d", Conns: conns}, srv}
}

func (f transportFake) Transport(t *testing.T) chat.Transport {
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret("tok-d"), ApplicationID: "app", GuildID: f.srv.GuildID(), ParentChannelID: "chan-3", APIURL: f.srv.URL()}
	return discord.NewTransport(cfg, discord.TransportOptions{Log: testr.New(t)})
}

// Withhold: what the fake can take away from the bot, by doctor check.
func (r fake) Withhold(check string) {
	if perm, ok := permissionBits[check]; ok {
		r.f.SetPermission(suiteToken, perm, false)
		return
	}
	switch check {
	case "token":
		r.f.SetTokenRejected(suiteToken, true)
	case "application":
		r.f.SetApplicationID(suiteToken, "111111111111111111") // the token of another application
	case "intents":
		r.f.SetMessageContentIntent(suiteToken, false)
	case "channel":
		r.f.SetChannelUnknown(suiteParent, true)
	default:
		panic("fakediscord cannot withhold " + check)
	}
}

// permissionBits are the permission checks by the bit the fake takes away.
var permissionBits = map[string]int64{
	"permission View Channel":             fakediscord.PermViewChannel,
	"permission Send Messages":            fakediscord.PermSendMessages,
	"permission Create Public Threads":    fakediscord.PermCreatePublicThreads,
	"permission Send Messages in Threads": fakediscord.PermSendMessagesInThreads,
	"permission Manage Threads":           fakediscord.PermManageThreads,
	"permission Add Reactions":            fakediscord.PermAddReactions,
	"permission Read Message History":     fakediscord.PermReadMessageHistory,
}
