package jobs

import (
	"slices"

	"github.com/municipal-apis/platform/pkg/problem"
)

// The states of a posting (docs/decisions.md#job-postings-and-courses).
const (
	StatusCriado    EmpregoStatus = "CRIADO"
	StatusAberto    EmpregoStatus = "ABERTO"
	StatusEmAnalise EmpregoStatus = "EM_ANALISE"
	StatusEncerrado EmpregoStatus = "ENCERRADO"
)

// initialStatuses are the states a posting may be created in; CRIADO is the default.
var initialStatuses = []EmpregoStatus{StatusCriado, StatusAberto}

// transitions lists, for each state, the states it may move to. ENCERRADO
// is final.
var transitions = map[EmpregoStatus][]EmpregoStatus{
	StatusCriado:    {StatusAberto, StatusEncerrado},
	StatusAberto:    {StatusEmAnalise, StatusEncerrado},
	StatusEmAnalise: {StatusAberto, StatusEncerrado},
}

// CanTransition reports whether a posting in state from may move to state
// to. Staying in the same state is not a change and is always allowed, so a
// client may echo the current status back.
func CanTransition(from, to EmpregoStatus) bool {
	return from == to || slices.Contains(transitions[from], to)
}

// Transition returns nil when from → to is allowed and a conflict naming
// both states otherwise.
func Transition(from, to EmpregoStatus) error {
	if CanTransition(from, to) {
		return nil
	}
	e := problem.Errorf(problem.ECONFLICT, "the status of this emprego cannot change from %s to %s", from, to)
	e.Fields = []problem.FieldError{{Field: "status", Code: CodeTransition, Message: "allowed from " + string(from) + ": " + allowedFrom(from)}}
	return e
}

func allowedFrom(from EmpregoStatus) string {
	if len(transitions[from]) == 0 {
		return "none, " + string(from) + " is final"
	}
	return join(transitions[from])
}

// StatusInput is the body of the dedicated status endpoint of a posting.
type StatusInput struct {
	Status EmpregoStatus `json:"status"`
}

// Validate records the violated rules of in.
func (in *StatusInput) Validate(v *problem.Violations) {
	requiredOneOf(v, "status", in.Status, EmpregoStatuses)
}
