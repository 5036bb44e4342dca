package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/go-logr/logr"
	"github.com/gorilla/websocket"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/internal/backoff"
	"gjc.dev/reconciler/pkg/chat/internal/rewrite"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/inbound"
	"gjc.dev/reconciler/pkg/ownership"
	"gjc.dev/reconciler/pkg/spec"
)

// Discord's gateway heartbeat interval is about 41 s; an ACK older than this
// window means the gateway stopped answering (discordgo itself gives up only
// after five missed ACKs).
const defaultAckWindow = 60 * time.Second

// defaultHandshake bounds one gateway connect (GET /gateway, dial, HELLO,
// IDENTIFY or RESUME, READY): discordgo's Open has no deadline of its own.
const defaultHandshake = 15 * time.Second

// TransportOptions tunes the Discord transport; zero values take defaults.
type TransportOptions struct {
	Log       logr.Logger
	Handshake time.Duration
	AckWindow time.Duration
	// Inbound, when set, receives the messages of the bot's guilds
	// (MESSAGE_CREATE, and MESSAGE_UPDATE as edits) and hears of each
	// READY, after which missed messages are read from history; it
	// decides the clicks on the asks' buttons (INTERACTION_CREATE, which
	// needs no intent).
	Inbound *chat.InboundPort
	// IdentifyReserve is how many of the day's session starts are never
	// spent (DefaultIdentifyReserve when 0).
	IdentifyReserve int
}

type transport struct {
	cfg    *spec.DiscordConfig
	opts   TransportOptions
	self   atomic.Value                     // string: the bot's user id, from READY
	logins atomic.Pointer[ownership.Logins] // Discord's count of session starts, as last read
	// resumable is set once a READY began a session: discordgo keeps its
	// id and RESUMEs it on the next connect, which costs no session start.
	resumable atomic.Bool
}

// NewTransport returns a transport for one Discord bot over the gateway.
func NewTransport(cfg *spec.DiscordConfig, opts TransportOptions) chat.Transport {
	if opts.Handshake == 0 {
		opts.Handshake = defaultHandshake
	}
	if opts.AckWindow == 0 {
		opts.AckWindow = defaultAckWindow
	}
	if opts.IdentifyReserve == 0 {
		opts.IdentifyReserve = DefaultIdentifyReserve
	}
	return &transport{cfg: cfg, opts: opts}
}

// Close codes after which reconnecting cannot succeed.
var terminalCodes = map[int]string{
	4004: daemonproto.ReasonInvalidCredentials, // authentication failed
	4010: daemonproto.ReasonGatewayRefused,     // invalid shard
	4011: daemonproto.ReasonGatewayRefused,     // sharding required
	4012: daemonproto.ReasonGatewayRefused,     // invalid API version
	4013: daemonproto.ReasonDisallowedIntents,  // invalid intents
	4014: daemonproto.ReasonDisallowedIntents,  // disallowed intents
}

func (d *transport) Run(ctx context.Context, report func(chat.Health)) error {
	report = d.withLogins(report)
	conns := &connTracker{}
	s, err := d.session(conns)
	if err != nil {
		return &chat.TerminalError{Reason: daemonproto.ReasonGatewayRefused, Message: err.Error()}
	}
	// Every way out closes the session, not only a cancel seen while
	// watching: one that lands during a reconnect (the token check fails
	// with the cancelled context) would otherwise leave the resumed
	// socket open and heartbeating after Run returned. Close sends close
	// code 1000, so the gateway ends the session and no second owner can
	// resume it.
	defer func() { _ = s.Close() }()
	ready := make(chan struct{}, 1)
	lost := make(chan struct{}, 1)
	notify := func(c chan struct{}) {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	s.AddHandler(func(_ *discordgo.Session, r *discordgo.Ready) {
		if r.User != nil {
			d.self.Store(r.User.ID)
		}
		d.started()
		d.resumable.Store(true)
		notify(ready)
		// A READY is a new session: whatever was sent since the last one
		// was never dispatched to this one.
		d.opts.Inbound.Connected()
	})
	if d.opts.Inbound != nil {
		s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageCreate) { d.receive(ctx, m.Message, inbound.Plain) })
		s.AddHandler(func(_ *discordgo.Session, m *discordgo.MessageUpdate) { d.receive(ctx, m.Message, inbound.Edit) })
		s.AddHandler(func(s *discordgo.Session, ic *discordgo.InteractionCreate) { d.click(ctx, s, ic) })
	}
	s.AddHandler(func(*discordgo.Session, *discordgo.Resumed) { notify(ready) })
	s.AddHandler(func(*discordgo.Session, *discordgo.Disconnect) { notify(lost) })

	b := backoff.New(500*time.Millisecond, 30*time.Second)
	for {
		if err := d.connect(ctx, s, conns); err != nil {
			var te *chat.TerminalError
			if errors.As(err, &te) {
				return te
			}
			if ctx.Err() != nil {
				return nil
			}
			if low, ok := errors.AsType[*budgetLowError](err); ok {
				report(chat.Health{Err: low.message, Reason: daemonproto.ReasonIdentifyBudgetLow})
				d.opts.Log.Info("discord session starts at the reserve; not identifying", "until", low.until)
				if sleep(ctx, time.Until(low.until)) != nil {
					return nil
				}
				continue
			}
			report(chat.Health{Err: err.Error()})
			d.opts.Log.Info("discord connect failed; retrying", "err", err.Error())
			if b.Wait(ctx) != nil {
				return nil
			}
			continue
		}
		b.Reset()
		if err := d.watch(ctx, s, report, ready, lost); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
		report(chat.Health{Err: "gateway connection lost"})
		d.opts.Log.Info("discord gateway connection lost; reconnecting")
	}
}

// discordIntents are the gateway intents the daemon identifies with: its
// guilds and their messages, and the privileged message content only when
// someone's replies may land (without it a reply arrives with no text).
func intents(cfg *spec.DiscordConfig) discordgo.Intent {
	intents := discordgo.IntentsGuilds | discordgo.IntentsGuildMessages
	if len(cfg.AuthorizedUserIDs) > 0 {
		intents |= discordgo.IntentMessageContent
	}
	return intents
}

// receive hands one gateway message to the inbound side. discordgo runs
// each handler in its own goroutine, so waiting here holds up nothing;
// a message not landed is found again by the next history read.
func (d *transport) receive(ctx context.Context, m *discordgo.Message, kind inbound.Kind) {
	if m == nil {
		return
	}
	self, _ := d.self.Load().(string)
	ev := EventOf(m, self)
	if kind == inbound.Edit && ev.Kind == inbound.Plain {
		ev.Kind = inbound.Edit
	}
	ctx, cancel := context.WithTimeout(ctx, inboundWait)
	defer cancel()
	if _, err := d.opts.Inbound.Receive(ctx, ev); err != nil {
		d.opts.Log.Error(err, "an inbound message did not land yet; it is tried again on its own", "message", m.ID)
	}
}

// click decides a button's click and answers it (onClick). Like
// receive, it runs in a goroutine of its own.
func (d *transport) click(ctx context.Context, s *discordgo.Session, ic *discordgo.InteractionCreate) {
	received := time.Now()
	respond := func(i *discordgo.Interaction, r *discordgo.InteractionResponse, o ...discordgo.RequestOption) error {
		return rewrite.DialledErr(s.InteractionRespond(i, r, o...), d.cfg.APIURL)
	}
	v, err := onClick(ctx, d.opts.Inbound, respond, ic.Interaction, received)
	switch {
	case errors.Is(err, errNotAClick):
	case answeredBefore(err):
		// Discord delivers at least once: a click delivered again (a
		// RESUME's replay) was decided and answered the first time.
		d.opts.Log.V(1).Info("a click delivered again was answered before", "interaction", ic.ID, "verdict", v.Kind.String())
	case err != nil:
		d.opts.Log.Error(err, "a click was not answered", "interaction", ic.ID)
	default:
		d.opts.Log.V(1).Info("click answered", "interaction", ic.ID, "verdict", v.Kind.String(), "after", time.Since(received))
	}
}

// inboundWait bounds how long a gateway message waits to land.
const inboundWait = 30 * time.Second

// session builds a discordgo session that reconnects only when Run says so:
// discordgo's own reconnect loop retries a rejected token forever.
func (d *transport) session(conns *connTracker) (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + d.cfg.BotToken.Reveal())
	if err != nil {
		return nil, fmt.Errorf("creating discord session: %w", err)
	}
	s.ShouldReconnectOnError = false
	s.StateEnabled = false
	s.Identify.Intents = intents(d.cfg)
	dialer := *websocket.DefaultDialer // a copy: the default is shared process-wide
	dialer.HandshakeTimeout = d.opts.Handshake
	dialer.NetDialContext = conns.dial
	s.Dialer = &dialer
	transport := http.DefaultTransport
	if d.cfg.APIURL != "" {
		if transport, err = rewrite.NewHost(d.cfg.APIURL, transport); err != nil {
			return nil, err
		}
	}
	s.Client = &http.Client{Timeout: d.opts.Handshake, Transport: transport}
	return s, nil
}

// connect checks the token, then opens the gateway within the handshake bound.
func (d *transport) connect(ctx context.Context, s *discordgo.Session, conns *connTracker) error {
	// discordgo sleeps out a 429 without looking at ctx: off, so a stop
	// is never held back by a long rate limit; the back-off retries.
	if _, err := s.User("@me", discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false)); err != nil {
		return d.restErr("checking the bot token", err)
	}
	// Every connect may identify (discordgo falls back to IDENTIFY when a
	// RESUME is refused), so the day's budget is read before each one.
	gb, err := s.GatewayBot(discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		return d.restErr("reading the session start limit", err)
	}
	now := time.Now()
	d.logins.Store(loginsOf(gb.SessionStartLimit, now))
	if v := judgeBudget(gb.SessionStartLimit, d.opts.IdentifyReserve, d.resumable.Load(), now); !v.ok {
		return &budgetLowError{identifyVerdict: v}
	}
	done := make(chan error, 1)
	go func() { done <- s.Open() }()
	timer := time.NewTimer(d.opts.Handshake)
	defer timer.Stop()
	select {
	case err = <-done:
	case <-timer.C:
		err = d.abortOpen(s, conns, done, fmt.Errorf("gateway handshake took longer than %v", d.opts.Handshake))
	case <-ctx.Done():
		err = d.abortOpen(s, conns, done, ctx.Err())
	}
	err = rewrite.DialledErr(err, d.cfg.APIURL)
	if errors.Is(err, discordgo.ErrWSAlreadyOpen) {
		return nil // a late Disconnect from an earlier socket; this one is up
	}
	if err == nil {
		conns.forget()
	}
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Code == 4014 && intents(d.cfg)&discordgo.IntentMessageContent != 0 {
			return &chat.TerminalError{Reason: daemonproto.ReasonDisallowedIntents, Message: "discord refused the privileged Message Content intent (close 4014), " +
				"which replies from authorizedUserIds need: " + messageContentFix(d.cfg.ApplicationID)}
		}
		if reason, ok := terminalCodes[ce.Code]; ok {
			return &chat.TerminalError{Reason: reason, Message: fmt.Sprintf("discord gateway closed with %d %s", ce.Code, ce.Text)}
		}
	}
	return err
}

// restErr is a failed REST call of connect: a rejected token (401) is
// terminal, anything else is retried.
func (d *transport) restErr(what string, err error) error {
	var re *discordgo.RESTError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized {
		return &chat.TerminalError{Reason: daemonproto.ReasonInvalidCredentials, Message: "discord rejected the bot token (401)"}
	}
	return fmt.Errorf("%s: %w", what, rewrite.DialledErr(err, d.cfg.APIURL))
}

// abortOpen unblocks an Open stuck in its handshake by closing its socket.
func (d *transport) abortOpen(s *discordgo.Session, conns *connTracker, done <-chan error, why error) error {
	conns.closeAll()
	if err := <-done; err == nil {
		_ = s.Close()
	}
	return why
}

// watch follows a connected session until it is lost or ctx is done, reporting
// health: healthy once READY (or RESUMED) arrived and while heartbeats are ACKed.
func (d *transport) watch(ctx context.Context, s *discordgo.Session, report func(chat.Health), ready, lost <-chan struct{}) error {
	gotReady := false
	tick := time.NewTicker(d.opts.AckWindow / 4)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-lost:
			return nil
		case <-ready:
			gotReady = true
		case <-tick.C:
		}
		switch ack, ok := lastAck(s); {
		case !gotReady:
			report(chat.Health{}) // connected, READY not yet in: starting, not failing
		case ok && time.Since(ack) > d.opts.AckWindow:
			report(chat.Health{Err: fmt.Sprintf("no heartbeat ACK for %v", time.Since(ack).Round(time.Second))})
		default:
			report(chat.Health{Healthy: true})
		}
	}
}

// lastAck reads discordgo's last heartbeat ACK time without waiting on the
// session lock, which Open holds for a whole handshake.
func lastAck(s *discordgo.Session) (time.Time, bool) {
	if !s.TryRLock() {
		return time.Time{}, false
	}
	defer s.RUnlock()
	return s.LastHeartbeatAck, true
}
