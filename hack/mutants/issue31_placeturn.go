package main

// Places are made one at a time, and one in doubt from before a kill
// goes first: Telegram's probe cannot tell two sessions' roots apart by
// where they lie, so the relay never has two of them in doubt.
func init() {
	mutants = append(mutants, []mutant{
		{"place turn: a root or thread request holds the relay's place turn where places cannot be told apart", "pkg/relay/request.go",
			"\tif (o == opRoot || o == opThread) && !r.opts.Poster.PlacesApart() {\n\t\trelease, err := r.takePlaceTurn(ctx, rec)\n",
			"\tif false {\n\t\trelease, err := r.takePlaceTurn(ctx, rec)\n",
			"./pkg/relay", "TestPlaceInDoubtGoesBeforeANewOne"},
		{"place turn: a place in doubt of another session holds a new one back", "pkg/relay/placeturn.go",
			"\t\tif !minePending || a.before(mine) {\n",
			"\t\tif minePending && a.before(mine) {\n",
			"./pkg/relay", "TestPlaceMayGo|TestPlaceInDoubtGoesBeforeANewOne"},
		{"place turn: sessions are ranked by their earliest place in doubt, not by the asking message", "pkg/relay/placeturn.go",
			"\tmine, minePending := r.firstInDoubtLocked(rec.Session)\n",
			"\tmine, minePending := r.st.attempts[rec.Key()]\n",
			"./pkg/relay", "TestPlaceTurnRanksSessionsNotMessages"},
		{"place turn: nothing goes before the outbox was listed once", "pkg/relay/placeturn.go",
			"\tif !r.turn.listed {\n\t\treturn false\n\t}\n",
			"\tif false {\n\t\treturn false\n\t}\n",
			"./pkg/relay", "TestPlaceMayGo"},
		{"place turn: a message that left the outbox holds back no place", "pkg/relay/placeturn.go",
			"\t_, live := r.known[a.rec.ID+\".json\"]\n\treturn live\n",
			"\t_, live := r.known[a.rec.ID+\".json\"]\n\treturn live || true\n",
			"./pkg/relay", "TestPlaceMayGo"},
	}...)
}
