package jobs

import (
	"slices"
	"strings"

	"github.com/municipal-apis/platform/pkg/problem"
)

// Jornada is the working schedule of a posting.
type Jornada string

// TipoContratacao is the kind of contract of a posting.
type TipoContratacao string

// Turno is the shift of a posting or a course.
type Turno string

// EmpregoStatus is the state of a posting in its status machine.
type EmpregoStatus string

// FormatoAula is how a course's classes are given.
type FormatoAula string

// Modalidade is where a course takes place.
type Modalidade string

// CursoStatus is the publication state of a course.
type CursoStatus string

// The values of the enums, in the order the API document lists them.
var (
	Jornadas         = []Jornada{"INTEGRAL", "MEIO_PERIODO", "FLEXIVEL", "ESTAGIO", "HOME_OFFICE"}
	TiposContratacao = []TipoContratacao{"CLT", "ESTAGIO", "JOVEM_APRENDIZ", "MEI", "PJ"}
	Turnos           = []Turno{"MANHA", "TARDE", "NOITE", "INTEGRAL", "LIVRE"}
	EmpregoStatuses  = []EmpregoStatus{StatusCriado, StatusAberto, StatusEmAnalise, StatusEncerrado}
	FormatosAula     = []FormatoAula{"GRAVADO", "AO_VIVO"}
	Modalidades      = []Modalidade{"Presencial", "Semipresencial", "Remoto"}
	CursoStatuses    = []CursoStatus{"draft", "opened", "closed", "canceled"}
)

// oneOf records a violation when val is set and not among allowed.
func oneOf[T ~string](v *problem.Violations, field string, val *T, allowed []T) {
	if val == nil || v.Has(field) || slices.Contains(allowed, *val) {
		return
	}
	v.Add(field, CodeOneOf, "must be one of "+join(allowed))
}

// requiredOneOf is oneOf for a member that must be present.
func requiredOneOf[T ~string](v *problem.Violations, field string, val T, allowed []T) {
	if v.Has(field) {
		return
	}
	if val == "" {
		v.Add(field, CodeRequired, "is required; one of "+join(allowed))
		return
	}
	oneOf(v, field, &val, allowed)
}

func join[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, x := range values {
		s[i] = string(x)
	}
	return strings.Join(s, ", ")
}
