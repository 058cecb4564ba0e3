package catalog

import (
	"strings"
	"unicode/utf8"

	"github.com/municipal-apis/platform/pkg/problem"
)

// ReadOnlyMembers are response members a client may echo back in a request;
// they are accepted and ignored, never stored.
var ReadOnlyMembers = []string{
	"id", "autor", "created_at", "last_update", "embedding", "search_content",
	"schema_version", "embedding_status",
}

// Input is the request body of a create or a full update (table 2.7, request
// column). Pointers tell a missing member from a zero value.
type Input struct {
	NomeServico           *string        `json:"nome_servico"`
	OrgaoGestor           []string       `json:"orgao_gestor"`
	PublicoEspecifico     []string       `json:"publico_especifico"`
	Resumo                *string        `json:"resumo"`
	TemaGeral             *string        `json:"tema_geral"`
	CustoServico          *string        `json:"custo_servico"`
	DescricaoCompleta     *string        `json:"descricao_completa"`
	ResultadoSolicitacao  *string        `json:"resultado_solicitacao"`
	TempoAtendimento      *string        `json:"tempo_atendimento"`
	Agents                *Agents        `json:"agents"`
	AwaitingApproval      *bool          `json:"awaiting_approval"`
	CanaisDigitais        []string       `json:"canais_digitais"`
	CanaisPresenciais     []string       `json:"canais_presenciais"`
	DocumentosNecessarios []string       `json:"documentos_necessarios"`
	LegislacaoRelacionada []string       `json:"legislacao_relacionada"`
	ExtraFields           map[string]any `json:"extra_fields"`
	FixarDestaque         *bool          `json:"fixar_destaque"`
	InstrucoesSolicitante *string        `json:"instrucoes_solicitante"`
	IsFree                *bool          `json:"is_free"`
	ServicoNaoCobre       *string        `json:"servico_nao_cobre"`
	PublishedAt           *int64         `json:"published_at"`
	Status                *int           `json:"status"`
}

// MaxTimestamp is the last second of the year 9999, the largest
// published_at: a time in milliseconds (1700000000000, the year 55840) is
// a mistake of unit, not a date.
const MaxTimestamp = 253402300799

// Servico checks every rule of table 2.7 and returns the entry the input
// describes, recording each violation in v. Members that already failed to
// decode are not checked again. Blank strings in arrays are not items.
func (in Input) Servico(v *problem.Violations) *Servico {
	c := checker{v: v}
	s := &Servico{
		NomeServico:           c.required("nome_servico", in.NomeServico, MaxNomeServico),
		OrgaoGestor:           c.list("orgao_gestor", in.OrgaoGestor, true),
		PublicoEspecifico:     c.list("publico_especifico", in.PublicoEspecifico, true),
		Resumo:                c.required("resumo", in.Resumo, MaxResumo),
		TemaGeral:             c.required("tema_geral", in.TemaGeral, MaxTemaGeral),
		CustoServico:          c.text("custo_servico", in.CustoServico),
		DescricaoCompleta:     c.text("descricao_completa", in.DescricaoCompleta),
		ResultadoSolicitacao:  c.text("resultado_solicitacao", in.ResultadoSolicitacao),
		TempoAtendimento:      c.text("tempo_atendimento", in.TempoAtendimento),
		Agents:                in.Agents,
		AwaitingApproval:      in.AwaitingApproval,
		CanaisDigitais:        c.list("canais_digitais", in.CanaisDigitais, false),
		CanaisPresenciais:     c.list("canais_presenciais", in.CanaisPresenciais, false),
		DocumentosNecessarios: c.list("documentos_necessarios", in.DocumentosNecessarios, false),
		LegislacaoRelacionada: c.list("legislacao_relacionada", in.LegislacaoRelacionada, false),
		ExtraFields:           in.ExtraFields,
		FixarDestaque:         in.FixarDestaque,
		InstrucoesSolicitante: c.optional("instrucoes_solicitante", in.InstrucoesSolicitante),
		IsFree:                in.IsFree,
		ServicoNaoCobre:       c.optional("servico_nao_cobre", in.ServicoNaoCobre),
		PublishedAt:           in.PublishedAt,
	}
	if in.Agents != nil {
		c.text("agents.tool_hint", &in.Agents.ToolHint)
	}
	if in.ExtraFields != nil && containsNUL(in.ExtraFields) && !v.Has("extra_fields") {
		v.Add("extra_fields", "invalid_value", "must not contain NUL characters")
	}
	if in.PublishedAt != nil && (*in.PublishedAt < 0 || *in.PublishedAt > MaxTimestamp) {
		v.Addf("published_at", "out_of_range", "must be a Unix timestamp in seconds, from 0 to %d (the end of the year 9999): milliseconds are too large", MaxTimestamp)
	}
	if in.Status != nil {
		s.Status = *in.Status
		if s.Status != StatusDraft && s.Status != StatusPublished {
			v.Add("status", "out_of_range", "must be 0 (draft) or 1 (published)")
		}
	}
	return s
}

// checker applies the string and array rules, skipping members that already
// have a violation (a wrong type, say).
type checker struct{ v *problem.Violations }

func (c checker) required(field string, p *string, max int) string {
	if c.v.Has(field) {
		return ""
	}
	if p == nil || strings.TrimSpace(*p) == "" {
		c.v.Add(field, "required", "is required and must not be blank")
		return ""
	}
	if max > 0 && utf8.RuneCountInString(*p) > max {
		c.v.Addf(field, "max_length", "must be at most %d characters", max)
	}
	return c.text(field, p)
}

func (c checker) text(field string, p *string) string {
	if p == nil || c.v.Has(field) {
		return ""
	}
	if strings.ContainsRune(*p, 0) {
		c.v.Add(field, "invalid_value", "must not contain NUL characters")
	}
	return *p
}

func (c checker) optional(field string, p *string) *string {
	if p == nil {
		return nil
	}
	s := c.text(field, p)
	return &s
}

// list trims the items of a string array and drops blank ones; a required
// array must keep at least one item, and none may hold more than MaxListItems.
func (c checker) list(field string, items []string, required bool) []string {
	if c.v.Has(field) {
		return nil
	}
	if len(items) > MaxListItems {
		c.v.Addf(field, "max_items", "must hold at most %d items", MaxListItems)
		return nil
	}
	if items == nil && !required {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	switch {
	case required && items == nil:
		c.v.Add(field, "required", "is required")
	case required && len(out) == 0:
		c.v.Add(field, "min_items", "must have at least 1 non-blank item")
	case containsNUL(out):
		c.v.Add(field, "invalid_value", "must not contain NUL characters")
	}
	return out
}

// containsNUL reports whether any string inside a decoded JSON value holds
// U+0000, which PostgreSQL text and jsonb cannot store.
func containsNUL(v any) bool {
	switch t := v.(type) {
	case string:
		return strings.ContainsRune(t, 0)
	case []string:
		for _, s := range t {
			if strings.ContainsRune(s, 0) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if containsNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if strings.ContainsRune(k, 0) || containsNUL(e) {
				return true
			}
		}
	}
	return false
}
