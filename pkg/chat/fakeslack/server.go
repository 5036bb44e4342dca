package fakeslack

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// DefaultPingInterval is how often the fake pings each socket unless told
// otherwise; socketmode gives a connection up after 30 s without one.
const DefaultPingInterval = 5 * time.Second

// Defaults for the workspace and app the fake pretends to be.
const (
	DefaultTeamID = "T0FAKE0001"
	DefaultAppID  = "A0FAKE0001"
)

// Options configure a Server. The zero value is usable.
type Options struct {
	// Host is the address to listen on: 127.0.0.1 when empty; a test's
	// own network namespace's address when its clients run in another.
	Host string
	// BotTokens are the accepted bot tokens; empty accepts any "xoxb-" token.
	BotTokens []string
	// AppTokens are the accepted app-level tokens; empty accepts any "xapp-"
	// token. Listed app tokens receive events (queued) before they first connect.
	AppTokens []string
	// Channels, when set, are the only channels; empty means every channel ID exists.
	Channels []string
	// TeamID and AppID name the workspace and app; defaults above.
	TeamID, AppID string
	// PingInterval is how often each socket is pinged; DefaultPingInterval when zero.
	PingInterval time.Duration
	// AckTimeout is how long an events_api delivery may go unacked before
	// it is retried (DefaultAckTimeout, Slack's 3 s, when zero; negative:
	// never, so envelopes are redelivered only when their socket closes,
	// still at most 3 times).
	AckTimeout time.Duration
	// OnAck, if set, is called with the envelope as it stands each time an
	// ack frame for a known envelope is read, before the ack is recorded
	// and without the server's lock held: a test can check there what its
	// client had done by the time it acked. It must not call Close.
	OnAck func(Envelope)
	// Logf, if set, receives one line per protocol step. Tokens are never logged.
	Logf func(format string, args ...any)
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	// Faults has the switches every fake has: SetUnavailable,
	// RateLimitNext and AcceptThenFail (chat.postMessage and
	// files.completeUploadExternal: createMethods) and SetSlow
	// (every Web API answer).
	*fakeserver.Faults
	// View has Snapshot, WaitFor and the request log.
	fakeserver.View[Snapshot]
	core     *fakeserver.Server
	opts     Options
	channels map[string]bool // nil: every channel exists
	pings    atomic.Bool     // read by every socket's writer, so not under mu
	timers   sync.WaitGroup  // every armed ack timeout until it ran or was stopped

	mu       sync.Mutex
	ts       fakeserver.Sequence // microseconds of the ts handed out
	conns    map[*conn]struct{}
	tickets  map[string]string // single-use socket ticket -> app token
	apps     map[string]*AppStats
	messages []Message
	// files are the uploads and the users' files, in the order made;
	// shareLag hides a share from files.info for a while (SetShareLag).
	files     []*File
	fileSeq   int
	shareLag  time.Duration
	envelopes []*envelope
	byID      map[string]*envelope
	// ephemerals are what only one user saw; responseURLs the live
	// response_url of each interaction, by its path.
	ephemerals   []Ephemeral
	responseURLs map[string]*responseURL
	faults       faults
	// unknown channels answer channel_not_found; notIn ones not_in_channel.
	unknown, notIn map[string]bool
	archived       map[string]bool
	// withheld are the scopes taken from the app (SetScopeGranted).
	withheld map[string]bool
	// limits are the per-method rate limits, with each method's recent calls.
	limits     map[string]*methodLimit
	roundRobin int
	connSeq    int
}

// Start listens on an ephemeral port of opts.Host (127.0.0.1) and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.TeamID == "" {
		opts.TeamID = DefaultTeamID
	}
	if opts.AppID == "" {
		opts.AppID = DefaultAppID
	}
	if opts.PingInterval <= 0 {
		opts.PingInterval = DefaultPingInterval
	}
	if opts.AckTimeout == 0 {
		opts.AckTimeout = DefaultAckTimeout
	}
	s := &Server{
		opts:         opts,
		channels:     fakeserver.Only(opts.Channels),
		conns:        map[*conn]struct{}{},
		byID:         map[string]*envelope{},
		responseURLs: map[string]*responseURL{},
		tickets:      map[string]string{},
		apps:         map[string]*AppStats{},
		faults:       faults{rejected: map[string]bool{}},
		unknown:      map[string]bool{},
		notIn:        map[string]bool{},
		archived:     map[string]bool{},
		withheld:     map[string]bool{},
		limits:       map[string]*methodLimit{},
	}
	s.pings.Store(true)
	for _, tok := range opts.AppTokens {
		s.apps[tok] = &AppStats{}
	}
	core, err := fakeserver.Listen(fakeserver.Config{Name: "fakeslack", Host: opts.Host, Mu: &s.mu, Logf: opts.Logf, Drop: s.DropConnections})
	if err != nil {
		return nil, err
	}
	s.core, s.Faults, s.View = core, core.Faults(), fakeserver.NewView(core, s.snapshotLocked)
	core.Serve(s.routes())
	return s, nil
}

// URL is the server's base, like http://127.0.0.1:PORT; the Web API is under /api/.
func (s *Server) URL() string { return s.core.URL() }

// TeamID is the workspace's ID.
func (s *Server) TeamID() string { return s.opts.TeamID }

// Close stops the server, cuts every socket and waits for its goroutines, so
// a test's Logf is never called after Close returns.
func (s *Server) Close() {
	s.core.Close(func() []*fakeserver.Socket {
		var cut []*fakeserver.Socket
		for c := range s.conns {
			cut = append(cut, c.Socket)
		}
		for _, e := range s.envelopes {
			s.disarmLocked(e)
		}
		return cut
	})
	s.timers.Wait() // a timer that fired meanwhile finds the server closed
}

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/api/{method}", s.serveAPI)
	m.HandleFunc("GET /link/", s.serveSocket)
	m.HandleFunc("POST /response/{id}", s.serveResponseURL)
	m.HandleFunc("POST /upload/v1/{ticket}", s.serveUpload)
	m.HandleFunc("GET /files-pri/{file}/{name}", s.serveFile)
	m.HandleFunc("GET /files-pri/{file}/download/{name}", s.serveFile)
	m.HandleFunc("GET /signin", s.serveSignIn)
	m.HandleFunc("/", http.NotFound)
	return m
}

func (s *Server) logf(format string, args ...any) { s.core.Logf(format, args...) }

// Token kinds a Web API method accepts.
const (
	botToken = iota
	appToken
	anyToken
)

// checkTokenLocked returns the Slack error for a token used on a method that
// takes the given kind, or "" when it may proceed.
func (s *Server) checkTokenLocked(token string, kind int) string {
	isApp := strings.HasPrefix(token, "xapp-")
	switch {
	case token == "":
		return "not_authed"
	case s.faults.rejected[token]:
		return "invalid_auth"
	case kind == appToken && !isApp, kind == botToken && isApp:
		return "not_allowed_token_type"
	case isApp && !fakeserver.Accepts(s.opts.AppTokens, token, "xapp-"),
		!isApp && !fakeserver.Accepts(s.opts.BotTokens, token, "xoxb-"):
		return "invalid_auth"
	}
	return ""
}

// appLocked returns the counters of an app token, creating them.
func (s *Server) appLocked(token string) *AppStats { return fakeserver.Entry(s.apps, token) }
