package discord

import (
	"strconv"
	"testing"
	"time"
)

func TestFloorSnowflake(t *testing.T) {
	at := time.UnixMilli(discordEpoch + 3_600_000 + 1000)
	tests := []struct {
		first time.Time
		want  string
	}{
		{time.Time{}, "0"},
		{time.UnixMilli(discordEpoch + 10), "0"},       // before the epoch once skewed
		{at, strconv.FormatUint(uint64(1000)<<22, 10)}, // an hour and a second after it
	}
	for _, tt := range tests {
		if got := floorSnowflake(tt.first, time.Hour); got != tt.want {
			t.Errorf("floorSnowflake(%v) = %s, want %s", tt.first, got, tt.want)
		}
	}
}
