// Package catalog holds the search catalog's domain: the Servico entry, its
// validation, the search-schema registry, and the service that stores entries
// with their search documents through the Store and Embedder interfaces.
// "Table 2.7" in comments is the Servico table of the municipal services API
// document; what it leaves open is in docs/decisions.md#search-catalog.
package catalog

// Status values of a Servico.
const (
	StatusDraft     = 0
	StatusPublished = 1
)

// Limits of table 2.7 (API document), counted in characters (runes).
const (
	MaxNomeServico = 255
	MaxResumo      = 350
	// MaxTemaGeral is not in table 2.7: tema_geral is a theme that lists
	// filter on and a b-tree indexes, which refuses rows over 8 kB.
	MaxTemaGeral = 255
)

// MaxListItems bounds each string array of a Servico (orgao_gestor,
// canais_digitais, ...): every answer that holds the Servico, search hits
// and list pages included, embeds its arrays whole.
const MaxListItems = 100

// Embedding states reported in a Servico response.
const (
	EmbeddingReady   = "ready"
	EmbeddingPending = "pending"
)

// Agents tells AI agents how to use a Servico.
type Agents struct {
	ExclusiveForAgents bool   `json:"exclusive_for_agents"`
	ToolHint           string `json:"tool_hint"`
}

// Servico is one municipal service entry of the search catalog, with the
// search document of the current schema version attached.
type Servico struct {
	ID                    string         `json:"id"`
	NomeServico           string         `json:"nome_servico"`
	OrgaoGestor           []string       `json:"orgao_gestor"`
	PublicoEspecifico     []string       `json:"publico_especifico"`
	Resumo                string         `json:"resumo"`
	TemaGeral             string         `json:"tema_geral"`
	Autor                 string         `json:"autor"`
	CustoServico          string         `json:"custo_servico"`
	DescricaoCompleta     string         `json:"descricao_completa"`
	ResultadoSolicitacao  string         `json:"resultado_solicitacao"`
	TempoAtendimento      string         `json:"tempo_atendimento"`
	Agents                *Agents        `json:"agents,omitempty"`
	AwaitingApproval      *bool          `json:"awaiting_approval,omitempty"`
	CanaisDigitais        []string       `json:"canais_digitais,omitempty"`
	CanaisPresenciais     []string       `json:"canais_presenciais,omitempty"`
	DocumentosNecessarios []string       `json:"documentos_necessarios,omitempty"`
	LegislacaoRelacionada []string       `json:"legislacao_relacionada,omitempty"`
	ExtraFields           map[string]any `json:"extra_fields,omitempty"`
	FixarDestaque         *bool          `json:"fixar_destaque,omitempty"`
	InstrucoesSolicitante *string        `json:"instrucoes_solicitante,omitempty"`
	IsFree                *bool          `json:"is_free,omitempty"`
	ServicoNaoCobre       *string        `json:"servico_nao_cobre,omitempty"`
	PublishedAt           *int64         `json:"published_at,omitempty"`
	Status                int            `json:"status"`
	CreatedAt             int64          `json:"created_at"`
	LastUpdate            int64          `json:"last_update"`
	SearchContent         string         `json:"search_content,omitempty"`
	Embedding             []float32      `json:"embedding,omitempty"`
	SchemaVersion         string         `json:"schema_version,omitempty"`
	EmbeddingStatus       string         `json:"embedding_status,omitempty"`
}

// AttachDocument copies the search document doc into the response fields of s.
func (s *Servico) AttachDocument(doc Document) {
	s.SchemaVersion = doc.SchemaVersion
	s.SearchContent = doc.Content
	s.Embedding = doc.Embedding
	s.EmbeddingStatus = EmbeddingReady
	if doc.Pending {
		s.EmbeddingStatus = EmbeddingPending
	}
}

// publish sets the status to published, stamping published_at when unset.
func (s *Servico) publish(now int64) {
	s.Status = StatusPublished
	if s.PublishedAt == nil {
		s.PublishedAt = &now
	}
}
