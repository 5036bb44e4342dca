package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
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

// stableAfter is how long a connection lives before its end counts as
// a first failure again (the back-off starts over).
const stableAfter = time.Minute

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
	// StateDir is where the session is handed over to the name's next
	// owner (HandoverFile); "" hands nothing over.
	StateDir string
	// IdentifyReserve is how many of the day's session starts are never
	// spent (DefaultIdentifyReserve when 0).
	IdentifyReserve int
}

type transport struct {
	cfg    *spec.DiscordConfig
	opts   TransportOptions
	self   atomic.Value                     // string: the bot's user id, from READY
	logins atomic.Pointer[ownership.Logins] // Discord's count of session starts, as last read
	// resume is the session the next connect RESUMEs (nil: it
	// IDENTIFYs): begun by a READY, or handed over by the name's last
	// owner. Only Run's goroutine touches it.
	resume *resumeState
	// adopted is set while the session handed over was not resumed yet.
	adopted atomic.Bool
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

func (d *transport) Run(ctx context.Context, report func(chat.Health)) error {
	report = d.withLogins(report)
	s, err := d.session()
	if err != nil {
		return &chat.TerminalError{Reason: daemonproto.ReasonGatewayRefused, Message: err.Error()}
	}
	d.takeHandover()
	// A stop (ctx) leaves the session resumable (closeResumable) and
	// hands it to the name's next owner; a terminal end hands nothing.
	stopped := func() error {
		d.leaveHandover()
		return nil
	}
	b := backoff.New(500*time.Millisecond, 30*time.Second)
	for {
		g, err := d.connect(ctx, s)
		if err != nil {
			var te *chat.TerminalError
			if errors.As(err, &te) {
				return te
			}
			if ctx.Err() != nil {
				return stopped()
			}
			if low, ok := errors.AsType[*budgetLowError](err); ok {
				report(chat.Health{Err: low.message, Reason: daemonproto.ReasonIdentifyBudgetLow})
				d.opts.Log.Info("discord session starts at the reserve; not identifying", "until", low.until)
				if sleep(ctx, time.Until(low.until)) != nil {
					return stopped()
				}
				continue
			}
			report(chat.Health{Err: err.Error()})
			d.opts.Log.Info("discord connect failed; retrying", "err", err.Error(), "resuming", d.resume != nil)
			if sleep(ctx, max(d.ended(err), b.Next())) != nil {
				return stopped()
			}
			continue
		}
		up := time.Now()
		why := d.watch(ctx, g, report)
		d.resume = g.state()
		if ctx.Err() != nil {
			return stopped()
		}
		if te := d.terminal(why); te != nil {
			return te
		}
		report(chat.Health{Err: "gateway connection lost: " + why.Error()})
		// A connection that lived a while resets the back-off; one that
		// ends at once (a service that keeps asking to reconnect) is
		// reconnected after a jittered, growing wait, never in a loop.
		if time.Since(up) > stableAfter {
			b.Reset()
		}
		wait := d.ended(why)
		d.opts.Log.Info("discord gateway connection ended; reconnecting", "why", why.Error(), "resuming", d.resume != nil)
		if sleep(ctx, max(wait, b.Next())) != nil {
			return stopped()
		}
	}
}

// ended applies afterEnd to a connect or connection that ended with
// err: a session that is over is forgotten (the next connect IDENTIFYs,
// through the budget check), and the least wait before that connect is
// returned.
func (d *transport) ended(err error) time.Duration {
	if n, _ := afterEnd(err); n != identify {
		return 0
	}
	d.resume = nil
	// Discord asks for a random 1-5 s before the IDENTIFY after op 9.
	return time.Second + rand.N(4*time.Second)
}

// terminal is the TerminalError of a connection whose end says
// reconnecting cannot succeed; nil when it can.
func (d *transport) terminal(err error) *chat.TerminalError {
	ce, ok := errors.AsType[*websocket.CloseError](err)
	if !ok {
		return nil
	}
	if ce.Code == 4014 && intents(d.cfg)&discordgo.IntentMessageContent != 0 {
		return &chat.TerminalError{Reason: daemonproto.ReasonDisallowedIntents, Message: "discord refused the privileged Message Content intent (close 4014), " +
			"which replies from authorizedUserIds need: " + messageContentFix(d.cfg.ApplicationID)}
	}
	if n, reason := afterEnd(err); n == terminal {
		return &chat.TerminalError{Reason: reason, Message: fmt.Sprintf("discord gateway closed with %d %s", ce.Code, ce.Text)}
	}
	return nil
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

// session builds the discordgo session the transport's REST calls go
// through; the gateway is the transport's own (gateway.go).
func (d *transport) session() (*discordgo.Session, error) {
	s, err := discordgo.New("Bot " + d.cfg.BotToken.Reveal())
	if err != nil {
		return nil, fmt.Errorf("creating discord session: %w", err)
	}
	s.StateEnabled = false
	transport := http.DefaultTransport
	if d.cfg.APIURL != "" {
		if transport, err = rewrite.NewHost(d.cfg.APIURL, transport); err != nil {
			return nil, err
		}
	}
	s.Client = &http.Client{Timeout: d.opts.Handshake, Transport: transport}
	return s, nil
}

// connect checks the token, then opens the gateway within the handshake
// bound: a RESUME of d.resume if there is one, else an IDENTIFY.
func (d *transport) connect(ctx context.Context, s *discordgo.Session) (*gateway, error) {
	// discordgo sleeps out a 429 without looking at ctx: off, so a stop
	// is never held back by a long rate limit; the back-off retries.
	if _, err := s.User("@me", discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false)); err != nil {
		return nil, d.restErr("checking the bot token", err)
	}
	// The day's budget is read before every connect: a RESUME refused
	// (op 9) is followed by an IDENTIFY on a connect of its own, judged
	// here like any other.
	gb, err := s.GatewayBot(discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		return nil, d.restErr("reading the session start limit", err)
	}
	now := time.Now()
	d.logins.Store(loginsOf(gb.SessionStartLimit, now))
	if v := judgeBudget(gb.SessionStartLimit, d.opts.IdentifyReserve, d.resume != nil, now); !v.ok {
		return nil, &budgetLowError{identifyVerdict: v}
	}
	dialer := *websocket.DefaultDialer // a copy: the default is shared process-wide
	dialer.HandshakeTimeout = d.opts.Handshake
	gd := gatewayDial{dialer: &dialer, url: gb.URL, token: d.cfg.BotToken.Reveal(), intents: int(intents(d.cfg)),
		resume: d.resume, handshake: d.opts.Handshake, dispatch: d.dispatcher(ctx, s)}
	if d.resume != nil {
		gd.url = d.resume.URL
	}
	g, err := openGateway(ctx, gd)
	if err != nil {
		if te := d.terminal(err); te != nil {
			return nil, te
		}
		return nil, rewrite.DialledErr(err, d.cfg.APIURL)
	}
	return g, nil
}

// dispatcher handles a connection's dispatches, decoded into discordgo's
// event structs. Messages and clicks are handled each in a goroutine of
// its own, so a slow disk never holds up the reader.
func (d *transport) dispatcher(ctx context.Context, s *discordgo.Session) func(string, json.RawMessage) {
	return func(event string, data json.RawMessage) {
		switch event {
		case "READY":
			var r discordgo.Ready
			if d.decode(event, data, &r) && r.User != nil {
				d.self.Store(r.User.ID)
			}
			d.started()
			// A READY is a new session: whatever was sent since the last
			// one was never dispatched to this one.
			d.opts.Inbound.Connected()
		case "RESUMED":
			if d.adopted.Swap(false) {
				// A session handed over: what the last owner had read
				// and not landed as it stopped is read from history.
				d.opts.Inbound.Connected()
			}
		case "MESSAGE_CREATE":
			var m discordgo.MessageCreate
			if d.opts.Inbound != nil && d.decode(event, data, &m) {
				go d.receive(ctx, m.Message, inbound.Plain)
			}
		case "MESSAGE_UPDATE":
			var m discordgo.MessageUpdate
			if d.opts.Inbound != nil && d.decode(event, data, &m) {
				go d.receive(ctx, m.Message, inbound.Edit)
			}
		case "INTERACTION_CREATE":
			var ic discordgo.InteractionCreate
			if d.opts.Inbound != nil && d.decode(event, data, &ic) && ic.Interaction != nil {
				go d.click(ctx, s, &ic)
			}
		}
	}
}

// decode reads one dispatch; one that does not decode is logged and
// skipped (a message is found again by the next history read).
func (d *transport) decode(event string, data json.RawMessage, v any) bool {
	if err := json.Unmarshal(data, v); err != nil {
		d.opts.Log.Error(err, "a gateway event did not decode", "event", event)
		return false
	}
	return true
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

// errDeaf ends a connection the inbound side found deaf.
var errDeaf = errors.New("the connection delivers nothing the history has")

// watch follows a connection until it ends or ctx is done, and returns
// why it ended (nil for ctx), reporting health: healthy while heartbeats
// are ACKed. ctx closes it resumably (closeResumable), and so does the
// inbound side's word that it is deaf: the reconnect RESUMEs, which
// costs no session start.
func (d *transport) watch(ctx context.Context, g *gateway, report func(chat.Health)) error {
	tick := time.NewTicker(d.opts.AckWindow / 4)
	defer tick.Stop()
	for {
		ack := g.lastAckAt()
		healthy := time.Since(ack) <= d.opts.AckWindow
		if healthy {
			report(chat.Health{Healthy: true})
		} else {
			report(chat.Health{Err: fmt.Sprintf("no heartbeat ACK for %v", time.Since(ack).Round(time.Second))})
		}
		select {
		case <-ctx.Done():
			g.close(closeResumable)
			return nil
		case <-g.ended():
			return g.err()
		case why := <-d.opts.Inbound.Deaf():
			if !healthy {
				continue // the connection is ending on its own
			}
			d.opts.Log.Info("reconnecting the discord gateway: the connection looks healthy but delivers nothing", "why", why)
			g.close(closeResumable)
			return fmt.Errorf("%w: %s", errDeaf, why)
		case <-tick.C:
		}
	}
}
