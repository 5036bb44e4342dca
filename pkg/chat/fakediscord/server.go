package fakediscord

import (
	"strings"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// DefaultHeartbeatInterval is the interval Discord usually announces in HELLO.
const DefaultHeartbeatInterval = 41250 * time.Millisecond

// DefaultGuildID is the guild every bot is in unless Options.GuildID says otherwise.
const DefaultGuildID = "100000000000000001"

// Options configure a Server. The zero value is usable.
type Options struct {
	// Host is the address to listen on: 127.0.0.1 when empty; a test's
	// own network namespace's address when its clients run in another.
	Host string
	// Tokens are the bot tokens (without the "Bot " prefix) the fake accepts.
	// Empty accepts any non-empty token, which suits the demo.
	Tokens []string
	// Channels, when set, are the only text channels that exist besides the
	// threads created through the API. Empty means every channel ID exists.
	Channels []string
	// GuildID is the one guild every bot is in; DefaultGuildID when empty.
	GuildID string
	// HeartbeatInterval is announced in HELLO; DefaultHeartbeatInterval when
	// zero. discordgo gives up on a connection after five intervals without an
	// ACK, so tests that stop ACKs want tens of milliseconds here.
	HeartbeatInterval time.Duration
	// NonceWindow is how long a nonce sent with enforce_nonce stays
	// unique per author; DefaultNonceWindow when zero.
	NonceWindow time.Duration
	// InteractionDeadline is how long after a click its interaction may
	// be answered (Discord's 3 s): DefaultInteractionDeadline when zero.
	InteractionDeadline time.Duration
	// Logf, if set, receives one line per protocol step. Tokens are never logged.
	Logf func(format string, args ...any)
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	// Faults has the switches every fake has: SetUnavailable,
	// RateLimitNext (message and thread POSTs), AcceptThenFail (message
	// POSTs) and SetSlow (REST).
	*fakeserver.Faults
	// View has Snapshot, WaitFor and the request log.
	fakeserver.View[Snapshot]
	core     *fakeserver.Server
	opts     Options
	channels map[string]bool // nil: every channel exists

	mu       sync.Mutex
	ids      fakeserver.Sequence
	conns    map[*conn]struct{}
	sessions map[string]*session
	stats    map[string]*TokenStats
	messages []Message
	threads  []Thread
	faults   faults
	nonces   map[string]nonceUse // by author ID and nonce
	windows  map[string]*window  // per-route rate limit windows
	starts   map[string]*startBudget
	names    map[string]string // users' global names (SetGlobalName)
	clicks   []Interaction     // every click made, in order, with its answers

	downloads, tokensToCDN int // CDN requests, and those with a token
}

// Start listens on an ephemeral port of opts.Host (127.0.0.1) and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.GuildID == "" {
		opts.GuildID = DefaultGuildID
	}
	if opts.NonceWindow <= 0 {
		opts.NonceWindow = DefaultNonceWindow
	}
	if opts.InteractionDeadline <= 0 {
		opts.InteractionDeadline = DefaultInteractionDeadline
	}
	if opts.HeartbeatInterval <= 0 {
		opts.HeartbeatInterval = DefaultHeartbeatInterval
	}
	s := &Server{
		opts:     opts,
		channels: fakeserver.Only(opts.Channels),
		conns:    map[*conn]struct{}{},
		sessions: map[string]*session{},
		stats:    map[string]*TokenStats{},
		faults:   faults{acks: true, rejected: map[string]bool{}, unknown: map[string]bool{}, denied: map[string]int64{}, appIDs: map[string]string{}, noContent: map[string]bool{}},
		nonces:   map[string]nonceUse{},
		windows:  map[string]*window{},
		names:    map[string]string{},
	}
	core, err := fakeserver.Listen(fakeserver.Config{Name: "fakediscord", Host: opts.Host, Mu: &s.mu, Logf: opts.Logf, Drop: s.DropConnections})
	if err != nil {
		return nil, err
	}
	s.core, s.Faults, s.View = core, core.Faults(), fakeserver.NewView(core, s.snapshotLocked)
	core.Serve(s.routes())
	return s, nil
}

// URL is the base to point a client's REST calls at, like http://127.0.0.1:PORT;
// the API lives under /api/v9/.
func (s *Server) URL() string { return s.core.URL() }

// GatewayURL is the websocket address that GET /api/v9/gateway hands out.
func (s *Server) GatewayURL() string { return "ws" + strings.TrimPrefix(s.URL(), "http") + "/gateway" }

// GuildID is the guild every bot is in.
func (s *Server) GuildID() string { return s.opts.GuildID }

// Close stops the server, cuts every connection and waits for its goroutines,
// so a test's Logf is never called after Close returns.
func (s *Server) Close() {
	s.core.Close(s.detachAllLocked)
}

func (s *Server) logf(format string, args ...any) { s.core.Logf(format, args...) }

// tokenOKLocked says whether a bot token may connect and call the API now.
func (s *Server) tokenOKLocked(token string) bool {
	return token != "" && !s.faults.rejected[token] && fakeserver.Accepts(s.opts.Tokens, token, "")
}

// statsLocked returns the mutable counters of a token, creating them.
func (s *Server) statsLocked(token string) *TokenStats { return fakeserver.Entry(s.stats, token) }
