package telegram

// Answer is what the service said to one probing edit: editMessageText
// of one message id with the exact text of the part being looked up.
type Answer int

const (
	// NotModified: "message is not modified": the message is the bot's
	// and already carries this text: the part was posted as this id.
	NotModified Answer = iota
	// CantEdit: "message can't be edited": someone else's message, or a
	// service message. The probe goes on above it.
	CantEdit
	// NotFound: "message to edit not found": no message with this id (not
	// yet, or deleted).
	NotFound
	// Edited: the edit succeeded: the message was the bot's with other
	// content. Nothing can be concluded of the part being looked up.
	Edited
	// Unknown: any other answer (a timeout, a 5xx, a 429): nothing is
	// learned of this id.
	Unknown
	// Skipped: not asked: the id is a part the relay confirmed, or one
	// this process posted with other text; an edit would overwrite it.
	Skipped
	// Foreign: the bot's message, proven another part's by where it lies
	// (another thread). The probe goes on above it.
	Foreign
	// OtherKind: "there is no text in the message to edit" (asked of a
	// document) or "there is no caption in the message to edit" (of a
	// text): the bot's message of the other kind, which a part of this
	// kind never is. The probe goes on above it.
	OtherKind
)

// Verdict is what a probe concluded.
type Verdict int

const (
	// Probing: not decided yet: probe Next.
	Probing Verdict = iota
	// Posted: the part is message Found.
	Posted
	// NotPosted: every id above the start was probed up to past the top:
	// the part was never accepted, and may be posted.
	NotPosted
	// Undecided: the probe cannot tell; the session waits (never a blind
	// re-post).
	Undecided
)

// Probe bounds: topGap ids in a row answered NotFound above the known
// top are past the top of the chat (a message deleted in between is one
// id; a gap this long is not what a chat looks like while the probe
// runs); maxProbe ids at most are probed for one part.
const (
	topGap   = 8
	maxProbe = 200
)

// Decide is the id probe as a pure function (DESIGN 5, "Telegram"):
// given the answers for the ids above start (answers[k] is for start+1+k)
// and top, the highest id proven to exist in the chat (learned at any
// time: a message the bot posted or was sent; 0 when none is known), the
// verdict, the id found, and the next id to probe when Probing.
// Message ids in a supergroup are sequential, so a part whose answer was
// lost is at one of the ids above the last one confirmed, or nowhere.
// Its invariant: NotPosted only once topGap ids in a row, past every
// probed message and past top, were NotFound; ids missing at or below
// top were deleted (a gap there is no top, however long); any answer
// that proves nothing (Unknown) or an edit that changed a message
// (Edited: the probe itself touched a message of the bot's) decides
// Undecided; so a part is re-posted only when the chat proves it absent.
//
// Skipped ids are the bot's own known messages: they end a gap like
// CantEdit, and do not count towards the bound, which is on requests.
func Decide(start, top int64, answers []Answer) (v Verdict, found, next int64) {
	gap, asked := 0, 0
	for k, a := range answers {
		id := start + 1 + int64(k)
		if a != Skipped {
			asked++
		}
		switch a {
		case NotModified:
			return Posted, id, 0
		case CantEdit, Skipped, Foreign, OtherKind:
			gap = 0
		case NotFound:
			if id <= top {
				continue // deleted: an id below a proven one is no top
			}
			gap++
			if gap >= topGap {
				return NotPosted, 0, 0
			}
		default:
			return Undecided, 0, 0
		}
	}
	if asked >= maxProbe {
		return Undecided, 0, 0
	}
	return Probing, 0, start + 1 + int64(len(answers))
}
