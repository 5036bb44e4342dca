package doctor

import (
	"fmt"
	"io"
)

// Line is one check's outcome.
type Line struct {
	// Check names what was checked, as the report shows it: "token",
	// "permission Send Messages", "scope chat:write".
	Check string `json:"check"`
	// OK is whether it passed.
	OK bool `json:"ok"`
	// Says is, when OK, what was found; otherwise what to do about it.
	Says string `json:"says"`
}

// Pass is a check that passed, with what it found.
func Pass(check, found string) Line { return Line{Check: check, OK: true, Says: found} }

// Fail is a check that failed, with what to do.
func Fail(check, fix string) Line { return Line{Check: check, Says: fix} }

// Failed counts the lines that did not pass.
func Failed(lines []Line) int {
	n := 0
	for _, l := range lines {
		if !l.OK {
			n++
		}
	}
	return n
}

// Print writes lines under a heading, one per check: "  ok    check: found"
// or "  FAIL  check: what to do".
func Print(w io.Writer, heading string, lines []Line) {
	fmt.Fprintln(w, heading)
	for _, l := range lines {
		mark := "ok  "
		if !l.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s  %s: %s\n", mark, l.Check, l.Says)
	}
}
