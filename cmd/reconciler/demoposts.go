package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"golang.org/x/term"

	"gjc.dev/reconciler/pkg/demo"
)

// syncWriter makes each Write whole on a writer shared by the demo's
// status table and its post lines, so a line is never cut by another.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// postLine is how the demo shows one post: provider, session, a bar,
// then the text's first line (an edit marked, more lines said), cut to
// width code points.
func postLine(p demo.Post, width int) string {
	session := p.Session
	if session == "" {
		session = "-"
	}
	var text string
	switch {
	case p.Closed:
		text = "(thread archived and locked)"
	default:
		first, rest, more := strings.Cut(p.Text, "\n")
		text = first
		if p.Edit {
			text = "(edited) " + text
		}
		if more {
			text += fmt.Sprintf("  [+%d lines]", strings.Count(rest, "\n")+1)
		}
	}
	line := fmt.Sprintf("%-7s  %-10s │ %s", p.Provider, session, text)
	if r := []rune(line); width > 1 && len(r) > width {
		line = string(r[:width-1]) + "…"
	}
	return line
}

// lineWidth is the terminal's width when out is one, else 100.
func lineWidth(out io.Writer) int {
	if f, ok := out.(*os.File); ok {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			return w
		}
	}
	return 100
}
