package doctor

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestSkew(t *testing.T) {
	sent := time.Date(2026, 12, 6, 10, 0, 0, 500e6, time.UTC)
	received := sent.Add(200 * time.Millisecond)
	for _, tc := range []struct {
		name string
		at   time.Time
		want time.Duration
	}{
		{"the second the request went", sent.Truncate(time.Second), 0},
		{"answered at the last moment", received, 0},
		{"a second's truncation is not skew", sent.Add(-time.Second), 0},
		{"this machine ahead", sent.Add(-time.Minute), time.Minute - time.Second},
		{"this machine behind", received.Add(time.Minute), -time.Minute},
	} {
		if got := Skew(tc.at, sent, received); got != tc.want {
			t.Errorf("%s: Skew = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckClock(t *testing.T) {
	now := time.Now().Truncate(time.Second) // whole seconds: the figures below are exact
	date := func(d time.Duration) string { return now.Add(d).UTC().Format(http.TimeFormat) }
	for _, tc := range []struct {
		name, date string
		ok         bool
		says       string
	}{
		{"in step", date(0), true, "within 30s of Discord's"},
		{"just inside", date(29 * time.Second), true, "within"},
		{"ahead of us", date(2 * time.Minute), false, "clock is 2m0s off Discord's; set it by network time"},
		{"behind us", date(-2 * time.Minute), false, "clock is 1m59s off Discord's"},
		{"no Date", "", false, "sent no Date header"},
		{"garbage", "yesterday", false, `does not parse ("yesterday")`},
	} {
		l := CheckClock("Discord", tc.date, now, now)
		if l.OK != tc.ok || !strings.Contains(l.Says, tc.says) || l.Check != "clock" {
			t.Errorf("%s: %+v, want ok=%v and %q", tc.name, l, tc.ok, tc.says)
		}
	}
}

// Timed keeps the Date of a real answer over a real connection.
func TestTimedKeepsTheLastDate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/skewed" {
			w.Header().Set("Date", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		}
	}))
	defer srv.Close()
	tr := &Timed{}
	c := &http.Client{Transport: tr}
	if l := tr.Clock("x"); len(l) != 0 {
		t.Fatalf("no answer yet, yet %+v", l)
	}
	for path, ok := range map[string]bool{"/": true, "/skewed": false} {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if l := tr.Clock("x"); len(l) != 1 || l[0].OK != ok {
			t.Errorf("after %s: %+v, want one line, ok=%v", path, l, ok)
		}
	}
}
