package faketelegram

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"gjc.dev/reconciler/pkg/chat/internal/fakeserver"
)

// DefaultFirstUpdateID is the first update's id unless Options say another:
// the service starts a bot's updates at some positive number, not at 1.
const DefaultFirstUpdateID = 700000001

// Options configure a Server. The zero value is usable.
type Options struct {
	// Host is the address to listen on: 127.0.0.1 when empty.
	Host string
	// Token is the one bot token the fake accepts; DefaultToken when empty.
	// It must have the service's shape (ValidToken).
	Token string
	// BotUsername is the bot's username; DefaultBotUsername when empty.
	BotUsername string
	// Chats are the supergroups the bot is in; one forum supergroup,
	// DefaultChatID, when empty.
	Chats []Chat
	// Limit is every chat's posting budget (SetLimit changes one chat's);
	// the zero Limit never answers 429. TelegramLimit is the service's.
	Limit Limit
	// FirstUpdateID is the first update's id; DefaultFirstUpdateID when 0.
	FirstUpdateID int64
	// CallbackTimeout is how long after a click the bot can answer its
	// callback query; DefaultCallbackTimeout when 0.
	CallbackTimeout time.Duration
	// Logf, if set, receives one line per protocol step. The token is
	// never logged.
	Logf func(format string, args ...any)
}

// Server is a running fake. All methods are safe for concurrent use.
type Server struct {
	// Faults has the switches every fake has: RateLimitNext and
	// AcceptThenFail (sendMessage) and SetSlow (every answer).
	// SetUnavailable is the Server's own.
	*fakeserver.Faults
	// View has Snapshot, WaitFor and the request log.
	fakeserver.View[Snapshot]
	core *fakeserver.Server
	opts Options
	bot  User

	mu       sync.Mutex
	closed   chan struct{} // closed by Close: long polls give up
	chats    map[int64]*chat
	order    []int64    // chat ids as configured, the first is the default
	messages []*Message // every chat's, in creation order
	updates  updateQueue
	queries  []*CallbackQuery // every click, in order
	poll     *poll            // the getUpdates waiting now, if any
	polls    fakeserver.Sessions
	webhook  string
	privacy  bool // privacy mode (SetPrivacy)
	counts   counts
	faults   faults
	files    map[string]*file // by file_id
	fileSeq  int
	// fileGets and downloads count getFile answers and files served.
	fileGets, downloads int
}

// counts are what the oracle counts beyond the skeleton's Observed.
type counts struct {
	conflicts     int // 409s answered
	deleteWebhook int // deleteWebhook calls
}

// Start listens on an ephemeral port of opts.Host and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.Token == "" {
		opts.Token = DefaultToken
	}
	if !ValidToken(opts.Token) {
		return nil, fmt.Errorf("faketelegram: Options.Token has not the shape of a bot token")
	}
	if opts.BotUsername == "" {
		opts.BotUsername = DefaultBotUsername
	}
	if len(opts.Chats) == 0 {
		opts.Chats = []Chat{{ID: DefaultChatID, Forum: true}}
	}
	if opts.FirstUpdateID == 0 {
		opts.FirstUpdateID = DefaultFirstUpdateID
	}
	if opts.CallbackTimeout <= 0 {
		opts.CallbackTimeout = DefaultCallbackTimeout
	}
	s := &Server{
		opts:    opts,
		bot:     User{ID: botID(opts.Token), IsBot: true, FirstName: "Fake Relay", Username: opts.BotUsername},
		closed:  make(chan struct{}),
		chats:   map[int64]*chat{},
		updates: newUpdateQueue(opts.FirstUpdateID),
		faults:  newFaults(),
		files:   map[string]*file{},
	}
	if err := checkChats(opts.Chats); err != nil {
		return nil, err
	}
	core, err := fakeserver.Listen(fakeserver.Config{
		Name: "faketelegram", Host: opts.Host, Mu: &s.mu, Logf: opts.Logf,
		Drop: func() int { return 0 }, APIPrefix: "/bot",
	})
	if err != nil {
		return nil, err
	}
	s.core, s.Faults, s.View = core, core.Faults(), fakeserver.NewView(core, s.snapshotLocked)
	for _, c := range opts.Chats {
		s.addChat(c)
	}
	core.Serve(s.routes())
	return s, nil
}

// URL is the server's base, like http://127.0.0.1:PORT: a client's
// bot.WithServerURL.
func (s *Server) URL() string { return s.core.URL() }

// Token is the bot token the fake accepts.
func (s *Server) Token() string { return s.opts.Token }

// BotUser is the bot as getMe shows it; its id is the token's digits.
func (s *Server) BotUser() User { return s.bot }

// Close stops the server, ends a waiting long poll unanswered and waits
// for every request, so a test's Logf is never called after Close returns.
func (s *Server) Close() {
	s.core.Close(func() []*fakeserver.Socket {
		close(s.closed)
		return nil
	})
}

func (s *Server) routes() http.Handler {
	m := http.NewServeMux()
	m.HandleFunc("/{bot}/{method}", s.serveAPI)
	m.HandleFunc("/file/{bot}/{path...}", s.serveFile)
	m.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeAnswer(w, notFound("Not Found")) })
	return m
}

func (s *Server) logf(format string, args ...any) { s.core.Logf(format, args...) }
