package postgres

import "github.com/municipal-apis/platform/services/search-admin/internal/catalog"

// servicoRow is a row of table servicos; arrays and objects are jsonb.
type servicoRow struct {
	ID                    string `gorm:"primaryKey"`
	NomeServico           string
	OrgaoGestor           []string `gorm:"serializer:json"`
	PublicoEspecifico     []string `gorm:"serializer:json"`
	Resumo                string
	TemaGeral             string
	Autor                 string
	CustoServico          string
	DescricaoCompleta     string
	ResultadoSolicitacao  string
	TempoAtendimento      string
	Agents                *catalog.Agents `gorm:"serializer:json"`
	AwaitingApproval      *bool
	CanaisDigitais        []string       `gorm:"serializer:json"`
	CanaisPresenciais     []string       `gorm:"serializer:json"`
	DocumentosNecessarios []string       `gorm:"serializer:json"`
	LegislacaoRelacionada []string       `gorm:"serializer:json"`
	ExtraFields           map[string]any `gorm:"serializer:json"`
	FixarDestaque         *bool
	InstrucoesSolicitante *string
	IsFree                *bool
	ServicoNaoCobre       *string
	PublishedAt           *int64
	Status                int
	CreatedAt             int64 `gorm:"autoCreateTime:false"`
	LastUpdate            int64
}

// TableName implements gorm's tabler.
func (servicoRow) TableName() string { return "servicos" }

// servicoWithDoc is a servicos row joined with its current search document.
type servicoWithDoc struct {
	Row              servicoRow `gorm:"embedded"`
	SchemaVersion    *string
	SearchContent    *string
	Embedding        vector
	EmbeddingPending *bool
}

func toRow(s *catalog.Servico) servicoRow {
	return servicoRow{
		ID: s.ID, NomeServico: s.NomeServico, OrgaoGestor: s.OrgaoGestor, PublicoEspecifico: s.PublicoEspecifico,
		Resumo: s.Resumo, TemaGeral: s.TemaGeral, Autor: s.Autor, CustoServico: s.CustoServico,
		DescricaoCompleta: s.DescricaoCompleta, ResultadoSolicitacao: s.ResultadoSolicitacao,
		TempoAtendimento: s.TempoAtendimento, Agents: s.Agents, AwaitingApproval: s.AwaitingApproval,
		CanaisDigitais: s.CanaisDigitais, CanaisPresenciais: s.CanaisPresenciais,
		DocumentosNecessarios: s.DocumentosNecessarios, LegislacaoRelacionada: s.LegislacaoRelacionada,
		ExtraFields: s.ExtraFields, FixarDestaque: s.FixarDestaque, InstrucoesSolicitante: s.InstrucoesSolicitante,
		IsFree: s.IsFree, ServicoNaoCobre: s.ServicoNaoCobre, PublishedAt: s.PublishedAt, Status: s.Status,
		CreatedAt: s.CreatedAt, LastUpdate: s.LastUpdate,
	}
}

func (r servicoRow) servico() *catalog.Servico {
	return &catalog.Servico{
		ID: r.ID, NomeServico: r.NomeServico, OrgaoGestor: r.OrgaoGestor, PublicoEspecifico: r.PublicoEspecifico,
		Resumo: r.Resumo, TemaGeral: r.TemaGeral, Autor: r.Autor, CustoServico: r.CustoServico,
		DescricaoCompleta: r.DescricaoCompleta, ResultadoSolicitacao: r.ResultadoSolicitacao,
		TempoAtendimento: r.TempoAtendimento, Agents: r.Agents, AwaitingApproval: r.AwaitingApproval,
		CanaisDigitais: r.CanaisDigitais, CanaisPresenciais: r.CanaisPresenciais,
		DocumentosNecessarios: r.DocumentosNecessarios, LegislacaoRelacionada: r.LegislacaoRelacionada,
		ExtraFields: r.ExtraFields, FixarDestaque: r.FixarDestaque, InstrucoesSolicitante: r.InstrucoesSolicitante,
		IsFree: r.IsFree, ServicoNaoCobre: r.ServicoNaoCobre, PublishedAt: r.PublishedAt, Status: r.Status,
		CreatedAt: r.CreatedAt, LastUpdate: r.LastUpdate,
	}
}

// servico converts the joined row, attaching the document when there is one.
func (r servicoWithDoc) servico() *catalog.Servico {
	s := r.Row.servico()
	if r.SchemaVersion != nil {
		s.AttachDocument(catalog.Document{
			SchemaVersion: *r.SchemaVersion, Content: *r.SearchContent,
			Embedding: r.Embedding, Pending: *r.EmbeddingPending,
		})
	}
	return s
}
