package providertest

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/relay"
	"gjc.dev/reconciler/pkg/spec"
)

// Subject is a provider as the suite tests it: how to tune it, configure
// it against a fake, and start that fake, and the few ways its service's
// shape differs that the suite must know to expect the right things.
type Subject struct {
	// Provider returns the provider tuned for the suite: short request
	// timeouts (a lookup that finds nothing is believed soon, restarts
	// stay quick) and no pacing of its own (the fakes set no rate limit
	// unless a test asks); nonceWindow, when set, is its idempotency
	// window (Discord's nonce window).
	Provider func(nonceWindow time.Duration) chat.Provider
	// Config returns the provider's part of a config against the fake at
	// url (Provider and its block); user, when set, is authorized.
	Config func(url, user string) *spec.Config
	// Start starts a fake for one test; nonceWindow, when set, is its
	// window too, so a re-post past it doubles, as at the service.
	Start func(t *testing.T, nonceWindow time.Duration) Fake
	// Transport starts a fake for one test of the transport.
	Transport func(t *testing.T) TransportFake
	// NonceWindow: the service resolves a repeat inside a window by
	// itself, and after it the relay must look the part up by content.
	NonceWindow bool
	// ThreadRequest: making a session's thread is a request of its own
	// (Discord); else a thread is its root's replies (Slack).
	ThreadRequest bool
	// ClosesThreads: closing a session archives and locks its thread.
	ClosesThreads bool
	// InboundByTransport: replies come only through the transport (a
	// service with no history to read, Telegram), so a child relay that
	// lands replies runs the provider's transport too, its state in the
	// daemon's state directory.
	InboundByTransport bool
	// FileStage: an upload records a token of the service's before the
	// request that makes the file visible (relay.Part.Stage: Slack's
	// file id), so the file cases kill the relay at that step too.
	FileStage bool
	// DoctorChecks are the checks the provider's Doctor reports, in
	// order; each but "clock" can be withheld at the fake (Fake.Withhold).
	DoctorChecks []string
	// Gaps are the cases this provider does not pass yet, by their path
	// under the suite ("RelayRandomKills", "RelayCrashMatrix/<case>"),
	// each with why: they are skipped saying so, never run and ignored.
	// A provider with gaps does not pass the suite whole.
	Gaps map[string]string
	// RandomRun, when set, sizes this provider's randomized run below the
	// suite's (randomMessages) for test runs, saying why in Why; the
	// whole run is RELAY_RANDOM_FULL=1.
	RandomRun *RandomRun
}

// RandomRun is a provider's own size of the randomized run.
type RandomRun struct {
	Messages int
	Why      string
}

// skipGap skips t when its case is one of s's known gaps.
func (s Subject) skipGap(t *testing.T, top string) {
	t.Helper()
	if why, ok := s.Gaps[strings.TrimPrefix(t.Name(), top+"/")]; ok {
		t.Skipf("a known gap of this provider, not passed yet: %s", why)
	}
}

// Fake is a provider's fake as the suite drives and reads it.
type Fake interface {
	// URL is the fake's base URL, the config's apiURL.
	URL() string
	// WaitFor waits, on the fake's change notices, until cond holds.
	WaitFor(ctx context.Context, cond func() bool) error

	// HoldNext holds the next create request at the fake; held returns
	// once one is held; afterKill runs once its client is dead and lets
	// it go on (a service may or may not store a request whose client
	// went away: the relay must cope with both).
	HoldNext() (held, afterKill func(context.Context) error)
	// AcceptThenFail makes the next post succeed at the fake and fail at
	// the client: a 502, or a cut connection when cut.
	AcceptThenFail(cut bool)
	// WaitPosts waits for more than n create requests, and returns how
	// many there were.
	WaitPosts(ctx context.Context, n int) (int, error)
	// Places are the sessions' places in the channel, in channel order.
	Places() []Place
	// Messages counts the messages the fake holds.
	Messages() int

	// LoseChannel takes the channel out of the bot's reach, or gives it
	// back.
	LoseChannel(lost bool)
	// DeletePlace deletes a session's place as a moderator does.
	DeletePlace(p Place)
	// RateLimitNext answers the next n posts 429, to retry after
	// retryAfter, as the service does.
	RateLimitNext(n int, retryAfter time.Duration)

	// User is the authorized user's id at the service.
	User() string
	// Reply posts text in place as User; id is the reply's message id.
	Reply(place, text string) (id string, err error)
	// WaitEyes waits until message id in place has n reactions of ours,
	// asked for n times: a re-sent reaction would not show otherwise.
	WaitEyes(ctx context.Context, place, id string, n int) error

	// Withhold makes the fake answer as the service does when what a
	// doctor check checks is missing: the token refused, a permission or
	// a scope not granted.
	Withhold(check string)

	// Asked are the ids of the messages in place that were posted with
	// buttons (an ask's), in order, whether they still have them or not.
	Asked(place string) []string
	// Buttons are the data of the buttons message id in place has now,
	// in order; none once an edit took them away.
	Buttons(place, id string) []string
	// Text is message id's text in place now (after any edit).
	Text(place, id string) string
	// Click clicks the button with data on message id in place as user
	// (User, or Stranger), as the service delivers a click to the bot,
	// and returns what the bot answered the clicker: its text, "" for an
	// answer without one. An error when the bot did not answer within
	// the service's deadline, or ctx's.
	Click(ctx context.Context, place, id, user, data string) (answer string, err error)
	// Stranger is a user who may not decide: a person in the channel who
	// is not authorized.
	Stranger() string

	// Files are the files posted in place, in the order the fake took
	// them, a file posted twice listed twice. An upload is a create
	// request like a post: HoldNext, AcceptThenFail, RateLimitNext and
	// WaitPosts apply to it as to any post.
	Files(place string) []PostedFile
	// ReplyWithFile posts text with f attached in place as User, as the
	// service delivers such a reply to the bot; id is the reply's id.
	ReplyWithFile(place, text string, f AttachedFile) (id string, err error)
}

// PostedFile is a file as the fake holds it.
type PostedFile struct {
	Message     string // the id of the message that carries it
	Name        string
	ContentType string
	Size        int64
	Sum         string // hex SHA-256 of the content
}

// AttachedFile is a file a user attaches to a reply.
type AttachedFile struct {
	Name, ContentType string
	Content           []byte
}

// Place is a session's place at the service: its root, its thread (the
// root's id on a service whose thread is its root's replies), the
// thread's name and the texts posted in it, in order.
type Place struct {
	ID, Thread, Root, Name string
	// Threads counts the threads made from the root: one, unless the
	// relay made one twice; always one where a thread is its root's
	// replies.
	Threads int
	Replies []string
	Closed  bool // archived and locked
}

// name is the suite's daemon name.
const name = "conformance"

// config is the suite's daemon config for s against url.
func (s Subject) config(url, user string) *spec.Config {
	cfg := s.Config(url, user)
	cfg.Name, cfg.Generation, cfg.State, cfg.Verbosity = name, 1, spec.StateRunning, spec.VerbosityVerbose
	return cfg
}

// render is how the relay renders for s's provider.
func (s Subject) render(t *testing.T) relay.RenderOptions {
	p := s.Provider(0)
	poster, err := p.Poster(s.config("http://127.0.0.1:1", ""), logr.Discard(), "")
	if err != nil {
		t.Fatal(err)
	}
	return relay.RenderOptions{Verbose: true, Limit: poster.PartLimit(), Markup: p.Markup()}
}

// Run runs the suite against s. The crash tests run the relay in a
// child process: the test binary again, running the same top-level test,
// which plays the child instead when childEnv is set.
func Run(t *testing.T, s Subject) {
	if os.Getenv(childEnv) == "1" {
		exitChild(runChild(s)) // it returns only when the relay ended
	}
	top, _, _ := strings.Cut(t.Name(), "/")
	t.Run("Transport", func(t *testing.T) { Transport(t, s.Transport) })
	t.Run("RelayCrashMatrix", func(t *testing.T) { crashMatrix(t, s, top) })
	t.Run("InboundCrashMatrix", func(t *testing.T) { inboundCrashMatrix(t, s, top) })
	t.Run("InboundFiles", func(t *testing.T) { inboundFiles(t, s, top) })
	t.Run("RelayHonoursRateLimits", func(t *testing.T) { rateLimits(t, s) })
	t.Run("RelayChannelUnreachableAtStart", func(t *testing.T) { channelUnreachableAtStart(t, s) })
	t.Run("RelayPlaceWentAwayFailsNothing", func(t *testing.T) { placeWentAway(t, s) })
	if s.ClosesThreads {
		t.Run("RelayThreadDeletedBeforeItsArchive", func(t *testing.T) { threadDeletedBeforeArchive(t, s) })
	}
	t.Run("Decisions", func(t *testing.T) { decisions(t, s, top) })
	t.Run("Files", func(t *testing.T) { fileCases(t, s, top) })
	t.Run("RelayRandomKills", func(t *testing.T) { s.skipGap(t, top); randomKills(t, s, top) })
	t.Run("Doctor", func(t *testing.T) { doctorChecks(t, s) })
}
