package discord

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/fakediscord"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/daemonproto"
	"gjc.dev/reconciler/pkg/spec"
)

// budgetReset is when a test's spent budget resets: later than the
// longest wait (5 s) before the IDENTIFY that follows op 9, so the
// budget is still spent when that IDENTIFY is judged.
const budgetReset = 8 * time.Second

func handoverTransport(t *testing.T, f *fakediscord.Server, token, dir string) *transport {
	cfg := &spec.DiscordConfig{BotToken: spec.NewSecret(token), ApplicationID: "app", GuildID: f.GuildID(), ParentChannelID: gwChannel, APIURL: f.URL()}
	return NewTransport(cfg, TransportOptions{Log: testr.New(t), StateDir: dir}).(*transport)
}

// A transport that stops hands its session over; the next one in the
// same state directory RESUMEs it: one IDENTIFY for both, never two
// connected at once, and the file consumed.
func TestTransportHandsOverItsSession(t *testing.T) {
	f := startGatewayFake(t)
	dir := t.TempDir()
	h, cancel, run := providertest.StartTransport(t, handoverTransport(t, f, gwToken, dir))
	h.WaitFor(t, true)
	cancel()
	if err := run.Wait(t); err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, HandoverFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("handover file %v, %v", fi, err)
	}
	waitFake(t, f, "the first connection gone", func(s fakediscord.TokenStats) bool { return s.Live == 0 })

	h2, _, _ := providertest.StartTransport(t, handoverTransport(t, f, gwToken, dir))
	h2.WaitFor(t, true)
	st := waitFake(t, f, "the RESUME", func(s fakediscord.TokenStats) bool { return s.Resumes == 1 && s.Live == 1 })
	if st.Identifies != 1 || st.MaxLive != 1 {
		t.Fatalf("stats %+v: want the one IDENTIFY, one RESUME, never two live", st)
	}
	if _, err := os.Lstat(filepath.Join(dir, HandoverFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the handover file was not consumed: %v", err)
	}
}

// A transport of another bot token in the same directory does not take
// the session: it IDENTIFYs, and the session it was not given is left
// alone.
func TestTransportIgnoresAnotherTokensHandover(t *testing.T) {
	const other = "tok-other"
	f, err := fakediscord.Start(fakediscord.Options{Tokens: []string{gwToken, other}, Channels: []string{gwChannel}, HeartbeatInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	dir := t.TempDir()
	h, cancel, run := providertest.StartTransport(t, handoverTransport(t, f, gwToken, dir))
	h.WaitFor(t, true)
	cancel()
	if err := run.Wait(t); err != nil {
		t.Fatal(err)
	}
	h2, _, _ := providertest.StartTransport(t, handoverTransport(t, f, other, dir))
	h2.WaitFor(t, true)
	sn := f.Snapshot()
	if st := sn.Tokens[other]; st.Identifies != 1 || st.Resumes != 0 {
		t.Fatalf("the other token's stats %+v: want an IDENTIFY, no RESUME", st)
	}
	if _, err := os.Lstat(filepath.Join(dir, HandoverFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the handover file was left: %v", err)
	}
}

// A handover whose session is gone (op 9 on the RESUME) ends in an
// IDENTIFY, judged by the budget like any other: below the reserve the
// transport waits for the reset instead.
func TestStaleHandoverIdentifiesThroughTheBudget(t *testing.T) {
	f := startGatewayFake(t)
	dir := t.TempDir()
	tr := handoverTransport(t, f, gwToken, dir)
	if err := writeHandover(dir, tr.handoverIdentity(), resumeState{SessionID: "gone", Seq: 7, URL: f.GatewayURL()}); err != nil {
		t.Fatal(err)
	}
	f.SetSessionStarts(gwToken, DefaultIdentifyReserve, budgetReset)
	h, _, _ := providertest.StartTransport(t, tr)
	v := h.Next(t, "IdentifyBudgetLow", func(v chat.Health) bool { return v.Reason != "" })
	if v.Reason != daemonproto.ReasonIdentifyBudgetLow {
		t.Fatalf("report %+v, want IdentifyBudgetLow", v)
	}
	if st := f.Snapshot().Tokens[gwToken]; st.Identifies != 0 || st.Resumes != 0 {
		t.Fatalf("stats %+v below the reserve: want no IDENTIFY", st)
	}
	h.WaitFor(t, true) // the budget resets after budgetReset
	if st := f.Snapshot().Tokens[gwToken]; st.Identifies != 1 || st.Resumes != 0 {
		t.Fatalf("stats %+v: want the one IDENTIFY after the reset", st)
	}
}

// op 9 (not resumable) on a live connection: the IDENTIFY that follows
// is judged by the budget too, which discordgo's own re-identify was not.
func TestInvalidSessionIdentifiesThroughTheBudget(t *testing.T) {
	f := startGatewayFake(t)
	h, _, _ := providertest.StartTransport(t, handoverTransport(t, f, gwToken, ""))
	h.WaitFor(t, true)
	f.SetSessionStarts(gwToken, DefaultIdentifyReserve, budgetReset)
	f.InvalidateSessions(false)
	v := h.Next(t, "IdentifyBudgetLow", func(v chat.Health) bool { return v.Reason != "" })
	if v.Reason != daemonproto.ReasonIdentifyBudgetLow || !strings.Contains(v.Err, "resets them at") {
		t.Fatalf("report %+v, want IdentifyBudgetLow", v)
	}
	if st := f.Snapshot().Tokens[gwToken]; st.Identifies != 1 {
		t.Fatalf("stats %+v below the reserve: want no second IDENTIFY", st)
	}
	h.WaitFor(t, true)
	if st := f.Snapshot().Tokens[gwToken]; st.Identifies != 2 || st.MaxLive != 1 {
		t.Fatalf("stats %+v: want the second IDENTIFY after the reset", st)
	}
}

// A session begun with other intents is not resumed: a RESUME keeps the
// old session's intents, so a spec that now asks MESSAGE_CONTENT (an
// authorized user) IDENTIFYs instead, and the file is not used.
func TestHandoverOfOtherIntentsIsNotResumed(t *testing.T) {
	f := startGatewayFake(t)
	dir := t.TempDir()
	before := handoverTransport(t, f, gwToken, dir)
	after := handoverTransport(t, f, gwToken, dir)
	after.cfg.AuthorizedUserIDs = []string{"123456789012345678"}
	if before.handoverIdentity() == after.handoverIdentity() {
		t.Fatal("a handover of the same token with other intents is named alike")
	}
	if err := writeHandover(dir, before.handoverIdentity(), resumeState{SessionID: "s", Seq: 7, URL: f.GatewayURL()}); err != nil {
		t.Fatal(err)
	}
	after.takeHandover()
	if after.resume != nil {
		t.Fatalf("the session of other intents was taken for a RESUME: %+v", after.resume)
	}
}
