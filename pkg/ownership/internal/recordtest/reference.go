package recordtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"gjc.dev/reconciler/pkg/incarnation"
)

// This file transcribes the reference's record predicates (TypeScript,
// @gajae-code/coding-agent 0.11.6, chat-daemon-control.ts) into Go over
// JavaScript values, as an oracle: whatever this package accepts, the
// reference must accept too. JavaScript values are modelled as JSON.parse
// makes them: numbers are float64 (nearest double, ±Inf on overflow),
// objects map[string]any (a repeated key keeps the last value), arrays
// []any, null nil. isProcessIncarnation is incarnation.Valid, this
// system's incarnation authority.

// referenceKinds is the reference's ChatDaemonKind: the providers its
// records may name, frozen with the reference, and telegram, which this
// system added: the reference never runs a Telegram daemon, so it never
// meets such a record, and the model accepts it as this system does.
var referenceKinds = []string{"discord", "slack", "telegram"}

// JSParse is JSON.parse; ok is false where JSON.parse would throw.
func JSParse(data []byte) (v any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false // more than one value
	}
	return jsValue(v), true
}

func jsValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			panic(err)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = jsValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = jsValue(e)
		}
		return x
	}
	return v
}

func refNumber(v any) (float64, bool) { f, ok := v.(float64); return f, ok }

func refSafeInteger(v any) bool {
	f, ok := refNumber(v)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f) && f == math.Trunc(f) && math.Abs(f) <= (1<<53-1)
}

func refFinite(v any) bool {
	f, ok := refNumber(v)
	return ok && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func refNonEmptyString(v any) bool { s, ok := v.(string); return ok && len(s) > 0 }

func refObject(v any) (map[string]any, bool) { m, ok := v.(map[string]any); return m, ok }

// hasProcessIncarnationAuthority
func refIncarnationAuthority(v any) bool {
	s, ok := v.(string)
	return ok && incarnation.Valid(s)
}

// hasSafeChatDaemonOwnerShape
func refOwnerShape(value any) bool {
	state, ok := refObject(value)
	if !ok {
		return false
	}
	kind, _ := state["kind"].(string)
	pid, _ := refNumber(state["pid"])
	_, transportIsBool := state["transportHealthy"].(bool)
	stoppedAt, hasStoppedAt := state["stoppedAt"]
	return state["version"] == float64(1) &&
		slices.Contains(referenceKinds, kind) &&
		refSafeInteger(state["pid"]) && pid > 0 &&
		refNonEmptyString(state["ownerId"]) &&
		refNonEmptyString(state["identity"]) &&
		refIncarnationAuthority(state["incarnation"]) &&
		refFinite(state["startedAt"]) &&
		refFinite(state["heartbeatAt"]) &&
		transportIsBool &&
		(!hasStoppedAt || refFinite(stoppedAt))
}

// hasSafeChatDaemonStateShape
func StateShape(value any) bool {
	if !refOwnerShape(value) {
		return false
	}
	state := value.(map[string]any)
	g, _ := refNumber(state["generation"])
	return refSafeInteger(state["generation"]) && g >= 0
}

// isRecognizedLegacyGeneration: the owner shape holds and generation is
// undefined (absent; null is not undefined).
func LegacyGeneration(value any) bool {
	if !refOwnerShape(value) {
		return false
	}
	_, has := value.(map[string]any)["generation"]
	return !has
}

// isExactPreUpgradeUnavailableChatDaemonState
func ExactLegacy(value any) bool {
	state, ok := refObject(value)
	if !ok {
		return false
	}
	for key := range state {
		if !strings.Contains(" version kind pid ownerId identity incarnation startedAt heartbeatAt transportHealthy stoppedAt ", " "+key+" ") {
			return false
		}
	}
	kind, _ := state["kind"].(string)
	pid, _ := refNumber(state["pid"])
	_, transportIsBool := state["transportHealthy"].(bool)
	stoppedAt, hasStoppedAt := state["stoppedAt"]
	return state["version"] == float64(1) &&
		slices.Contains(referenceKinds, kind) &&
		refSafeInteger(state["pid"]) && pid > 0 &&
		refNonEmptyString(state["ownerId"]) &&
		refNonEmptyString(state["identity"]) &&
		state["incarnation"] == "unavailable" &&
		refFinite(state["startedAt"]) &&
		refFinite(state["heartbeatAt"]) &&
		transportIsBool &&
		(!hasStoppedAt || refFinite(stoppedAt))
}

// isChatDaemonOwnerLock
func OwnerLock(value any) bool {
	lock, ok := refObject(value)
	if !ok {
		return false
	}
	pid, _ := refNumber(lock["pid"])
	_, incIsString := lock["incarnation"].(string)
	_, createdIsNumber := lock["createdAt"].(float64)
	return refSafeInteger(lock["pid"]) && pid > 0 && incIsString && createdIsNumber
}
