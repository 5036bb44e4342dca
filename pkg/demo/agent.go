package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"gjc.dev/reconciler/pkg/bus"
)

// Script is what the demo's simulated coding agent publishes for one
// bot, in order: three sessions, opened with titles, a few messages of
// each level, a progress line edited in place (replaces), a long text
// with a code block that Discord's 2,000-character limit splits, and
// every session closed. Each call makes fresh ids.
func Script() []bus.Message {
	progress := bus.NewID()
	msg := func(session, level, text string) bus.Message {
		return bus.Message{ID: bus.NewID(), Session: session, Event: bus.EventMessage, Level: level, Text: text}
	}
	open := func(session, title string) bus.Message {
		return bus.Message{ID: bus.NewID(), Session: session, Event: bus.EventOpen, Level: bus.LevelInfo, Title: title}
	}
	closing := func(session, text string) bus.Message {
		return bus.Message{ID: bus.NewID(), Session: session, Event: bus.EventClose, Level: bus.LevelInfo, Text: text}
	}
	edit := func(text string) bus.Message {
		m := msg("build-42", bus.LevelInfo, text)
		m.Replaces = progress
		return m
	}
	first := msg("build-42", bus.LevelInfo, "Progress: 0 of 4 packages tested")
	first.ID = progress
	return []bus.Message{
		open("build-42", "Add retries to the uploader"),
		msg("build-42", bus.LevelInfo, "Reading the repo: 214 files, module gjc.dev/uploader"),
		open("fix-login", "Session cookie expires too early"),
		msg("build-42", bus.LevelAction, "Running tests: go test ./..."),
		first,
		msg("fix-login", bus.LevelInfo, "Reading internal/auth/cookie.go"),
		edit("Progress: 2 of 4 packages tested"),
		msg("build-42", bus.LevelError, "TestUploadRetry failed: expected 3 attempts, got 1"),
		edit("Progress: 4 of 4 packages tested, 1 failure"),
		msg("fix-login", bus.LevelAction, "Edited internal/auth/cookie.go: MaxAge 3600 -> 86400"),
		msg("build-42", bus.LevelInfo, LongText),
		open("docs-typo", "Fix a typo in the README"),
		closing("fix-login", "Done: the cookie now lasts a day; tests pass"),
		msg("docs-typo", bus.LevelAction, "Edited README.md: recieve -> receive"),
		closing("build-42", "Done: uploads retry three times with backoff; tests pass"),
		closing("docs-typo", "Done"),
	}
}

// LongText is the script's long message: a plan and a code block of
// about 2,600 characters, over Discord's 2,000, so it is posted as two
// parts there (the fence closed and reopened at the cut) and as one on
// Slack.
var LongText = longText()

func longText() string {
	var b strings.Builder
	b.WriteString("Here is the retry loop I am adding to upload.go:\n\n```go\n")
	b.WriteString("func (u *Uploader) Upload(ctx context.Context, f File) error {\n")
	b.WriteString("\tvar err error\n\tfor attempt := 1; attempt <= 3; attempt++ {\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "\t\t// step %02d: check the context, send the part, keep the answer\n", i)
	}
	b.WriteString("\t\tif err = u.send(ctx, f); err == nil {\n\t\t\treturn nil\n\t\t}\n")
	b.WriteString("\t}\n\treturn fmt.Errorf(\"upload %s: %w\", f.Name, err)\n}\n```\n\n")
	b.WriteString("Next: run the tests again.")
	return b.String()
}

// Produce plays Script for daemon name once, one message every pace,
// once connected() returns (the bot is connected to its fake), and then
// stops: the demo goes quiet so that posts a user sends by hand stand
// out. It writes each message with bus.Write into the daemon's outbox,
// as any agent would.
func Produce(ctx context.Context, agentDir, name string, pace time.Duration, connected func(context.Context) error) error {
	if err := connected(ctx); err != nil {
		return nil // the demo is ending
	}
	dirs, err := bus.Paths(agentDir, name)
	if err != nil {
		return err
	}
	if err := bus.EnsureDirs(dirs); err != nil {
		return fmt.Errorf("demo agent for %s: %w", name, err)
	}
	t := time.NewTimer(0)
	defer t.Stop()
	for _, m := range Script() {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		if _, err := bus.Write(dirs.Outbox, m); err != nil {
			return fmt.Errorf("demo agent for %s: %w", name, err)
		}
		t.Reset(pace)
	}
	return nil
}

// Connected returns a function that waits, on the fake's own change
// notifications, until daemon name's bot is connected to it.
func (e *Env) Connected(name string) func(context.Context) error {
	return func(ctx context.Context) error {
		b, err := e.bot(name)
		if err != nil {
			return err
		}
		return b.connected(ctx)
	}
}
