package client

// Servico is a service catalog entry of the search area (API document table 2.7). The
// same struct is a request and a response body: members the service sets
// (id, autor, timestamps, search_content, embedding) are left out of requests
// when empty and ignored by the service when echoed back.
type Servico struct {
	ID                    string         `json:"id,omitempty"`
	NomeServico           string         `json:"nome_servico"`
	OrgaoGestor           []string       `json:"orgao_gestor"`
	PublicoEspecifico     []string       `json:"publico_especifico"`
	Resumo                string         `json:"resumo"`
	TemaGeral             string         `json:"tema_geral"`
	Autor                 string         `json:"autor,omitempty"`
	CustoServico          string         `json:"custo_servico,omitempty"`
	DescricaoCompleta     string         `json:"descricao_completa,omitempty"`
	ResultadoSolicitacao  string         `json:"resultado_solicitacao,omitempty"`
	TempoAtendimento      string         `json:"tempo_atendimento,omitempty"`
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
	Status                *int           `json:"status,omitempty"`
	CreatedAt             int64          `json:"created_at,omitempty"`
	LastUpdate            int64          `json:"last_update,omitempty"`
	Embedding             []float32      `json:"embedding,omitempty"`
	SearchContent         string         `json:"search_content,omitempty"`
	SchemaVersion         string         `json:"schema_version,omitempty"`
	EmbeddingStatus       string         `json:"embedding_status,omitempty"`
}

// Agents tells AI agents how to use a Servico.
type Agents struct {
	ExclusiveForAgents bool   `json:"exclusive_for_agents"`
	ToolHint           string `json:"tool_hint,omitempty"`
}

// Status values of a Servico.
const (
	ServicoDraft     = 0
	ServicoPublished = 1
)

// SchemaReport is the answer of SchemaVersions: the search-schema versions
// available for migration and the one the search engine uses now.
type SchemaReport struct {
	CurrentVersion    string       `json:"current_version"`
	AvailableVersions []string     `json:"available_versions"`
	Schemas           []SchemaInfo `json:"schemas"`
}

// SchemaInfo describes one search-schema version.
type SchemaInfo struct {
	Version        string        `json:"version"`
	Description    string        `json:"description"`
	EmbeddingModel string        `json:"embedding_model"`
	Dimensions     int           `json:"dimensions"`
	Normalization  string        `json:"normalization,omitempty"`
	Fields         []SchemaField `json:"fields"`
}

// SchemaField is one Servico member feeding a schema's search content.
type SchemaField struct {
	Name   string `json:"name"`
	Weight string `json:"weight,omitempty"`
}

// MigrationStatus is the state of the search index migration, kept free-form
// because its members depend on the phase the migration is in.
type MigrationStatus map[string]any
