package linefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
)

// Line is one line of a file, without its newline. Truncated: the line was
// longer than the cap, and Text is its first cap bytes.
type Line struct {
	Text      []byte
	Truncated bool
}

// splitter cuts a stream of chunks into capped lines. What follows a
// line's cap up to its newline is dropped, so one endless line costs at
// most the cap in memory.
type splitter struct {
	max      int
	buf      []byte
	dropping bool
}

func (s *splitter) feed(data []byte, emit func(Line) error) error {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		chunk := data
		if i >= 0 {
			chunk = data[:i]
		}
		if !s.dropping {
			room := s.max - len(s.buf)
			if len(chunk) > room {
				s.buf = append(s.buf, chunk[:room]...)
				s.dropping = true
				if err := emit(Line{Text: s.take(), Truncated: true}); err != nil {
					return err
				}
			} else {
				s.buf = append(s.buf, chunk...)
			}
		}
		if i < 0 {
			return nil
		}
		data = data[i+1:]
		if s.dropping {
			s.dropping = false
			continue
		}
		if err := emit(Line{Text: s.take()}); err != nil {
			return err
		}
	}
	return nil
}

// flush emits a last line that has no newline (yet), if there is one.
func (s *splitter) flush(emit func(Line) error) error {
	if len(s.buf) == 0 || s.dropping {
		s.buf, s.dropping = s.buf[:0], false
		return nil
	}
	return emit(Line{Text: s.take()})
}

func (s *splitter) reset() { s.buf, s.dropping = s.buf[:0], false }

func (s *splitter) take() []byte {
	out := bytes.Clone(s.buf)
	s.buf = s.buf[:0]
	return out
}

const chunkSize = 64 << 10

// ReadLines emits the lines of f between the offsets from and to, each
// capped at max bytes, and returns the offset just past the last whole
// line (where a follower goes on). A last line without a newline is
// emitted when partial is set (a log's line being written), left out
// otherwise. When from is not 0, the line it falls in is skipped: only
// whole lines are read.
func ReadLines(f *os.File, from, to int64, max int, partial bool, emit func(Line) error) (int64, error) {
	s := splitter{max: max}
	end := from
	if from > 0 {
		// Skip to just after the first newline at or after from-1: from
		// itself may be the start of a line.
		s.dropping = true
		from--
	}
	buf := make([]byte, chunkSize)
	for off := from; off < to; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), to-off)], off)
		if n > 0 {
			if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
				end = off + int64(i) + 1
			}
			if ferr := s.feed(buf[:n], emit); ferr != nil {
				return end, ferr
			}
			off += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return end, err
		}
	}
	if partial {
		return end, s.flush(emit)
	}
	return end, nil
}

// Tail returns the last n lines of f's first size bytes, reading at most
// window bytes back from size, and the offset just past the last whole
// line; lines are capped at max bytes. partial is as for ReadLines.
func Tail(f *os.File, size int64, n int, window int64, max int, partial bool) ([]Line, int64, error) {
	ring := make([]Line, 0, min(max64(int64(n), 0), 1024))
	start := 0
	end, err := ReadLines(f, max64(0, size-window), size, max, partial, func(l Line) error {
		switch {
		case n <= 0:
		case len(ring) < n:
			ring = append(ring, l)
		default:
			ring[start] = l
			start = (start + 1) % n
		}
		return nil
	})
	return slices.Concat(ring[start:], ring[:start]), end, err
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
