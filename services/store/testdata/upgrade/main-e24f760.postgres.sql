--
-- PostgreSQL database dump
--


-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)




--
-- Name: access_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.access_tokens (
    id bigint NOT NULL,
    uid bigint NOT NULL,
    name character varying(255) NOT NULL,
    token_hash character varying(64) NOT NULL,
    token_last_eight character varying(8) NOT NULL,
    scope text DEFAULT ''::text NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    last_used_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: access_tokens_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.access_tokens_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: access_tokens_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.access_tokens_id_seq OWNED BY public.access_tokens.id;


--
-- Name: activities; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.activities (
    id bigint NOT NULL,
    kind character varying(32) NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint DEFAULT 0 NOT NULL,
    comment_id bigint DEFAULT 0 NOT NULL,
    actor_id bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: activities_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.activities_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: activities_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.activities_id_seq OWNED BY public.activities.id;


--
-- Name: attachments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.attachments (
    id bigint NOT NULL,
    uuid character varying(40) NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint DEFAULT 0 NOT NULL,
    comment_id bigint DEFAULT 0 NOT NULL,
    release_id bigint DEFAULT 0 NOT NULL,
    uploader_id bigint DEFAULT 0 NOT NULL,
    name character varying(255) DEFAULT ''::character varying NOT NULL,
    size bigint DEFAULT 0 NOT NULL,
    download_count bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: attachments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.attachments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: attachments_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.attachments_id_seq OWNED BY public.attachments.id;


--
-- Name: branches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.branches (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    name character varying(255) NOT NULL,
    commit_id character varying(64) DEFAULT ''::character varying NOT NULL,
    commit_message text DEFAULT ''::text NOT NULL,
    commit_unix bigint DEFAULT 0 NOT NULL,
    pusher_id bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: branches_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.branches_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: branches_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.branches_id_seq OWNED BY public.branches.id;


--
-- Name: collaborations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.collaborations (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    user_id bigint NOT NULL,
    mode bigint DEFAULT 2 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: collaborations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.collaborations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: collaborations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.collaborations_id_seq OWNED BY public.collaborations.id;


--
-- Name: comments; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.comments (
    id bigint NOT NULL,
    type bigint DEFAULT 0 NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    poster_id bigint DEFAULT 0 NOT NULL,
    content text DEFAULT ''::text NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: comments_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.comments_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: comments_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.comments_id_seq OWNED BY public.comments.id;


--
-- Name: issue_assignees; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issue_assignees (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    assignee_id bigint NOT NULL
);


--
-- Name: issue_assignees_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.issue_assignees_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: issue_assignees_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.issue_assignees_id_seq OWNED BY public.issue_assignees.id;


--
-- Name: issue_dependencies; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issue_dependencies (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    dependency_id bigint NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: issue_dependencies_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.issue_dependencies_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: issue_dependencies_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.issue_dependencies_id_seq OWNED BY public.issue_dependencies.id;


--
-- Name: issue_index; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issue_index (
    repo_id bigint NOT NULL,
    max_index bigint DEFAULT 0 NOT NULL
);


--
-- Name: issue_labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issue_labels (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    label_id bigint NOT NULL
);


--
-- Name: issue_labels_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.issue_labels_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: issue_labels_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.issue_labels_id_seq OWNED BY public.issue_labels.id;


--
-- Name: issue_mentions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issue_mentions (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    user_id bigint NOT NULL
);


--
-- Name: issue_mentions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.issue_mentions_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: issue_mentions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.issue_mentions_id_seq OWNED BY public.issue_mentions.id;


--
-- Name: issues; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.issues (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    index bigint NOT NULL,
    poster_id bigint DEFAULT 0 NOT NULL,
    title character varying(255) DEFAULT ''::character varying NOT NULL,
    content text DEFAULT ''::text NOT NULL,
    is_closed boolean DEFAULT false NOT NULL,
    is_pull boolean DEFAULT false NOT NULL,
    is_locked boolean DEFAULT false NOT NULL,
    num_comments bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    closed_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: issues_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.issues_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: issues_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.issues_id_seq OWNED BY public.issues.id;


--
-- Name: labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.labels (
    id bigint NOT NULL,
    repo_id bigint DEFAULT 0 NOT NULL,
    org_id bigint DEFAULT 0 NOT NULL,
    name character varying(255) DEFAULT ''::character varying NOT NULL,
    exclusive boolean DEFAULT false NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    color character varying(9) DEFAULT ''::character varying NOT NULL,
    num_issues bigint DEFAULT 0 NOT NULL,
    num_closed_issues bigint DEFAULT 0 NOT NULL,
    archived_unix bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: labels_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.labels_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: labels_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.labels_id_seq OWNED BY public.labels.id;


--
-- Name: mirrors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.mirrors (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    interval_secs bigint DEFAULT 0 NOT NULL,
    remote_address text DEFAULT ''::text NOT NULL,
    remote_sealed bytea,
    last_error text DEFAULT ''::text NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    next_update_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: mirrors_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.mirrors_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: mirrors_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.mirrors_id_seq OWNED BY public.mirrors.id;


--
-- Name: notifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.notifications (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    repo_id bigint NOT NULL,
    issue_id bigint NOT NULL,
    comment_id bigint DEFAULT 0 NOT NULL,
    status bigint DEFAULT 1 NOT NULL,
    source bigint DEFAULT 1 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: notifications_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.notifications_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: notifications_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.notifications_id_seq OWNED BY public.notifications.id;


--
-- Name: org_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.org_users (
    id bigint NOT NULL,
    uid bigint NOT NULL,
    org_id bigint NOT NULL,
    is_public boolean DEFAULT false NOT NULL
);


--
-- Name: org_users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.org_users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: org_users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.org_users_id_seq OWNED BY public.org_users.id;


--
-- Name: push_mirrors; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.push_mirrors (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    remote_name character varying(255) NOT NULL,
    remote_address text DEFAULT ''::text NOT NULL,
    remote_sealed bytea,
    sync_on_commit boolean DEFAULT false NOT NULL,
    interval_secs bigint DEFAULT 0 NOT NULL,
    last_error text DEFAULT ''::text NOT NULL,
    last_update_unix bigint DEFAULT 0 NOT NULL,
    next_update_unix bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: push_mirrors_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.push_mirrors_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: push_mirrors_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.push_mirrors_id_seq OWNED BY public.push_mirrors.id;


--
-- Name: releases; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.releases (
    id bigint NOT NULL,
    repo_id bigint NOT NULL,
    publisher_id bigint DEFAULT 0 NOT NULL,
    tag_name character varying(255) NOT NULL,
    lower_tag_name character varying(255) NOT NULL,
    target character varying(255) DEFAULT ''::character varying NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    sha1 character varying(64) DEFAULT ''::character varying NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    is_draft boolean DEFAULT false NOT NULL,
    is_prerelease boolean DEFAULT false NOT NULL,
    is_tag boolean DEFAULT false NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: releases_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.releases_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: releases_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.releases_id_seq OWNED BY public.releases.id;


--
-- Name: repositories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.repositories (
    id bigint NOT NULL,
    owner_id bigint NOT NULL,
    owner_name character varying(255) DEFAULT ''::character varying NOT NULL,
    lower_name character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    website text DEFAULT ''::text NOT NULL,
    default_branch character varying(255) DEFAULT ''::character varying NOT NULL,
    is_private boolean DEFAULT false NOT NULL,
    is_empty boolean DEFAULT true NOT NULL,
    is_archived boolean DEFAULT false NOT NULL,
    is_mirror boolean DEFAULT false NOT NULL,
    is_template boolean DEFAULT false NOT NULL,
    original_url text DEFAULT ''::text NOT NULL,
    num_watches bigint DEFAULT 0 NOT NULL,
    num_stars bigint DEFAULT 0 NOT NULL,
    num_forks bigint DEFAULT 0 NOT NULL,
    size bigint DEFAULT 0 NOT NULL,
    has_issues boolean DEFAULT true NOT NULL,
    has_wiki boolean DEFAULT true NOT NULL,
    has_pull_requests boolean DEFAULT true NOT NULL,
    has_projects boolean DEFAULT true NOT NULL,
    has_releases boolean DEFAULT true NOT NULL,
    has_packages boolean DEFAULT true NOT NULL,
    has_actions boolean DEFAULT true NOT NULL,
    ignore_whitespace_conflicts boolean DEFAULT false NOT NULL,
    allow_merge_commits boolean DEFAULT true NOT NULL,
    allow_rebase boolean DEFAULT true NOT NULL,
    allow_rebase_explicit boolean DEFAULT true NOT NULL,
    allow_squash_merge boolean DEFAULT true NOT NULL,
    allow_fast_forward_only_merge boolean DEFAULT true NOT NULL,
    allow_rebase_update boolean DEFAULT true NOT NULL,
    default_delete_branch_after_merge boolean DEFAULT false NOT NULL,
    default_merge_style text DEFAULT 'merge'::text NOT NULL,
    default_allow_maintainer_edit boolean DEFAULT false NOT NULL,
    archived_unix bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    num_issues bigint DEFAULT 0 NOT NULL,
    num_closed_issues bigint DEFAULT 0 NOT NULL,
    num_pulls bigint DEFAULT 0 NOT NULL,
    num_closed_pulls bigint DEFAULT 0 NOT NULL
);


--
-- Name: repositories_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.repositories_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: repositories_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.repositories_id_seq OWNED BY public.repositories.id;


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    id character varying(255) NOT NULL
);


--
-- Name: team_repos; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_repos (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    team_id bigint NOT NULL,
    repo_id bigint NOT NULL
);


--
-- Name: team_repos_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.team_repos_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: team_repos_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.team_repos_id_seq OWNED BY public.team_repos.id;


--
-- Name: team_units; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_units (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    team_id bigint NOT NULL,
    type bigint NOT NULL,
    access_mode bigint DEFAULT 0 NOT NULL
);


--
-- Name: team_units_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.team_units_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: team_units_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.team_units_id_seq OWNED BY public.team_units.id;


--
-- Name: team_users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.team_users (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    team_id bigint NOT NULL,
    uid bigint NOT NULL
);


--
-- Name: team_users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.team_users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: team_users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.team_users_id_seq OWNED BY public.team_users.id;


--
-- Name: teams; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.teams (
    id bigint NOT NULL,
    org_id bigint NOT NULL,
    lower_name character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    authorize bigint DEFAULT 0 NOT NULL,
    includes_all_repositories boolean DEFAULT false NOT NULL,
    can_create_org_repo boolean DEFAULT false NOT NULL,
    num_repos bigint DEFAULT 0 NOT NULL,
    num_members bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: teams_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.teams_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: teams_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.teams_id_seq OWNED BY public.teams.id;


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    id bigint NOT NULL,
    lower_name character varying(255) NOT NULL,
    name character varying(255) NOT NULL,
    full_name text DEFAULT ''::text NOT NULL,
    email text DEFAULT ''::text NOT NULL,
    lower_email character varying(255),
    type bigint DEFAULT 0 NOT NULL,
    passwd_hash text DEFAULT ''::text NOT NULL,
    login_source bigint DEFAULT 0 NOT NULL,
    login_name text DEFAULT ''::text NOT NULL,
    must_change_password boolean DEFAULT false NOT NULL,
    is_admin boolean DEFAULT false NOT NULL,
    is_active boolean DEFAULT false NOT NULL,
    prohibit_login boolean DEFAULT false NOT NULL,
    restricted boolean DEFAULT false NOT NULL,
    visibility bigint DEFAULT 0 NOT NULL,
    location text DEFAULT ''::text NOT NULL,
    website text DEFAULT ''::text NOT NULL,
    description text DEFAULT ''::text NOT NULL,
    language text DEFAULT ''::text NOT NULL,
    max_repo_creation bigint DEFAULT '-1'::integer NOT NULL,
    allow_git_hook boolean DEFAULT false NOT NULL,
    allow_import_local boolean DEFAULT false NOT NULL,
    allow_create_organization boolean DEFAULT true NOT NULL,
    totp_secret bytea,
    last_login_unix bigint DEFAULT 0 NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL,
    updated_unix bigint DEFAULT 0 NOT NULL,
    version bigint DEFAULT 0 NOT NULL,
    totp_last_step bigint DEFAULT 0 NOT NULL,
    keep_email_private boolean DEFAULT false NOT NULL,
    keep_activity_private boolean DEFAULT false NOT NULL,
    theme character varying(30) DEFAULT ''::character varying NOT NULL,
    diff_view_style character varying(15) DEFAULT ''::character varying NOT NULL,
    repo_admin_change_team_access boolean DEFAULT false NOT NULL
);


--
-- Name: users_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.users_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: users_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;


--
-- Name: watches; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.watches (
    id bigint NOT NULL,
    user_id bigint NOT NULL,
    repo_id bigint NOT NULL,
    created_unix bigint DEFAULT 0 NOT NULL
);


--
-- Name: watches_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.watches_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: watches_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.watches_id_seq OWNED BY public.watches.id;


--
-- Name: access_tokens id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens ALTER COLUMN id SET DEFAULT nextval('public.access_tokens_id_seq'::regclass);


--
-- Name: activities id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activities ALTER COLUMN id SET DEFAULT nextval('public.activities_id_seq'::regclass);


--
-- Name: attachments id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attachments ALTER COLUMN id SET DEFAULT nextval('public.attachments_id_seq'::regclass);


--
-- Name: branches id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.branches ALTER COLUMN id SET DEFAULT nextval('public.branches_id_seq'::regclass);


--
-- Name: collaborations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.collaborations ALTER COLUMN id SET DEFAULT nextval('public.collaborations_id_seq'::regclass);


--
-- Name: comments id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments ALTER COLUMN id SET DEFAULT nextval('public.comments_id_seq'::regclass);


--
-- Name: issue_assignees id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_assignees ALTER COLUMN id SET DEFAULT nextval('public.issue_assignees_id_seq'::regclass);


--
-- Name: issue_dependencies id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_dependencies ALTER COLUMN id SET DEFAULT nextval('public.issue_dependencies_id_seq'::regclass);


--
-- Name: issue_labels id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_labels ALTER COLUMN id SET DEFAULT nextval('public.issue_labels_id_seq'::regclass);


--
-- Name: issue_mentions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_mentions ALTER COLUMN id SET DEFAULT nextval('public.issue_mentions_id_seq'::regclass);


--
-- Name: issues id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issues ALTER COLUMN id SET DEFAULT nextval('public.issues_id_seq'::regclass);


--
-- Name: labels id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels ALTER COLUMN id SET DEFAULT nextval('public.labels_id_seq'::regclass);


--
-- Name: mirrors id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mirrors ALTER COLUMN id SET DEFAULT nextval('public.mirrors_id_seq'::regclass);


--
-- Name: notifications id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notifications ALTER COLUMN id SET DEFAULT nextval('public.notifications_id_seq'::regclass);


--
-- Name: org_users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_users ALTER COLUMN id SET DEFAULT nextval('public.org_users_id_seq'::regclass);


--
-- Name: push_mirrors id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_mirrors ALTER COLUMN id SET DEFAULT nextval('public.push_mirrors_id_seq'::regclass);


--
-- Name: releases id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.releases ALTER COLUMN id SET DEFAULT nextval('public.releases_id_seq'::regclass);


--
-- Name: repositories id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.repositories ALTER COLUMN id SET DEFAULT nextval('public.repositories_id_seq'::regclass);


--
-- Name: team_repos id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_repos ALTER COLUMN id SET DEFAULT nextval('public.team_repos_id_seq'::regclass);


--
-- Name: team_units id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_units ALTER COLUMN id SET DEFAULT nextval('public.team_units_id_seq'::regclass);


--
-- Name: team_users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_users ALTER COLUMN id SET DEFAULT nextval('public.team_users_id_seq'::regclass);


--
-- Name: teams id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.teams ALTER COLUMN id SET DEFAULT nextval('public.teams_id_seq'::regclass);


--
-- Name: users id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users ALTER COLUMN id SET DEFAULT nextval('public.users_id_seq'::regclass);


--
-- Name: watches id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watches ALTER COLUMN id SET DEFAULT nextval('public.watches_id_seq'::regclass);


--
-- Data for Name: access_tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.access_tokens (id, uid, name, token_hash, token_last_eight, scope, created_unix, updated_unix, last_used_unix) VALUES (1, 1, 'ci', 'deb87fabd17715bb31ad4cf4ffb9494eeb15f8d33d85b031a301c64ab3417eaa', '01234567', 'all', 1795643621, 1795643621, 0);


--
-- Data for Name: activities; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: attachments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.attachments (id, uuid, repo_id, issue_id, comment_id, release_id, uploader_id, name, size, download_count, created_unix) VALUES (1, '3f2c9a1e-0000-4000-8000-000000000001', 1, 1, 0, 0, 2, 'trace.txt', 42, 0, 1795643622);


--
-- Data for Name: branches; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: collaborations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.collaborations (id, repo_id, user_id, mode, created_unix) VALUES (1, 1, 2, 2, 1795643622);


--
-- Data for Name: comments; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.comments (id, type, repo_id, issue_id, poster_id, content, created_unix, updated_unix) VALUES (1, 0, 1, 1, 1, 'On it.', 1795643622, 1795643622);


--
-- Data for Name: issue_assignees; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issue_assignees (id, repo_id, issue_id, assignee_id) VALUES (1, 1, 1, 1);


--
-- Data for Name: issue_dependencies; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issue_dependencies (id, repo_id, issue_id, dependency_id, created_unix) VALUES (1, 1, 1, 2, 1795643622);


--
-- Data for Name: issue_index; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issue_index (repo_id, max_index) VALUES (1, 2);


--
-- Data for Name: issue_labels; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issue_labels (id, repo_id, issue_id, label_id) VALUES (1, 1, 1, 1);


--
-- Data for Name: issue_mentions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issue_mentions (id, repo_id, issue_id, user_id) VALUES (1, 1, 1, 1);


--
-- Data for Name: issues; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.issues (id, repo_id, index, poster_id, title, content, is_closed, is_pull, is_locked, num_comments, created_unix, updated_unix, closed_unix) VALUES (2, 1, 2, 1, 'Fix the base', '', false, false, false, 0, 1795643622, 1795643622, 0);
INSERT INTO public.issues (id, repo_id, index, poster_id, title, content, is_closed, is_pull, is_locked, num_comments, created_unix, updated_unix, closed_unix) VALUES (1, 1, 1, 2, 'It breaks', '@alice see this', false, false, false, 1, 1795643622, 1795643622, 0);


--
-- Data for Name: labels; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.labels (id, repo_id, org_id, name, exclusive, description, color, num_issues, num_closed_issues, archived_unix, created_unix, updated_unix) VALUES (1, 1, 0, 'kind/bug', true, '', '#ee0701', 1, 0, 0, 1795643622, 1795643622);


--
-- Data for Name: mirrors; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: notifications; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.notifications (id, user_id, repo_id, issue_id, comment_id, status, source, updated_unix, created_unix) VALUES (1, 1, 1, 1, 0, 1, 1, 1795643622, 1795643622);
INSERT INTO public.notifications (id, user_id, repo_id, issue_id, comment_id, status, source, updated_unix, created_unix) VALUES (2, 2, 1, 1, 1, 1, 1, 1795643622, 1795643622);


--
-- Data for Name: org_users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.org_users (id, uid, org_id, is_public) VALUES (1, 1, 3, false);


--
-- Data for Name: push_mirrors; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: releases; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.releases (id, repo_id, publisher_id, tag_name, lower_tag_name, target, title, sha1, note, is_draft, is_prerelease, is_tag, created_unix, updated_unix) VALUES (1, 1, 1, 'v1.0.0', 'v1.0.0', 'main', 'First', 'abababababababababababababababababababab', '', false, false, false, 1795643622, 1795643622);


--
-- Data for Name: repositories; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.repositories (id, owner_id, owner_name, lower_name, name, description, website, default_branch, is_private, is_empty, is_archived, is_mirror, is_template, original_url, num_watches, num_stars, num_forks, size, has_issues, has_wiki, has_pull_requests, has_projects, has_releases, has_packages, has_actions, ignore_whitespace_conflicts, allow_merge_commits, allow_rebase, allow_rebase_explicit, allow_squash_merge, allow_fast_forward_only_merge, allow_rebase_update, default_delete_branch_after_merge, default_merge_style, default_allow_maintainer_edit, archived_unix, created_unix, updated_unix, num_issues, num_closed_issues, num_pulls, num_closed_pulls) VALUES (1, 1, 'alice', 'project', 'project', 'sample', '', 'main', false, false, false, false, false, '', 1, 0, 0, 0, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false, '', false, 0, 1795643622, 1795643622, 2, 0, 0, 0);


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations (id) VALUES ('0001_users_and_access_tokens');
INSERT INTO public.schema_migrations (id) VALUES ('0002_users_version');
INSERT INTO public.schema_migrations (id) VALUES ('0003_repositories');
INSERT INTO public.schema_migrations (id) VALUES ('0004_totp_last_step');
INSERT INTO public.schema_migrations (id) VALUES ('0010_issues');
INSERT INTO public.schema_migrations (id) VALUES ('0030_issue_mentions');
INSERT INTO public.schema_migrations (id) VALUES ('0060_user_settings');
INSERT INTO public.schema_migrations (id) VALUES ('0060_issue_dependencies');
INSERT INTO public.schema_migrations (id) VALUES ('0020_orgs_and_teams');
INSERT INTO public.schema_migrations (id) VALUES ('0050_attachments');
INSERT INTO public.schema_migrations (id) VALUES ('0070_notifications');


--
-- Data for Name: team_repos; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: team_units; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (1, 3, 1, 1, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (2, 3, 1, 2, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (3, 3, 1, 3, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (4, 3, 1, 4, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (5, 3, 1, 5, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (6, 3, 1, 6, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (7, 3, 1, 7, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (8, 3, 1, 8, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (9, 3, 1, 9, 4);
INSERT INTO public.team_units (id, org_id, team_id, type, access_mode) VALUES (10, 3, 1, 10, 4);


--
-- Data for Name: team_users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.team_users (id, org_id, team_id, uid) VALUES (1, 3, 1, 1);


--
-- Data for Name: teams; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.teams (id, org_id, lower_name, name, description, authorize, includes_all_repositories, can_create_org_repo, num_repos, num_members, created_unix, updated_unix) VALUES (1, 3, 'owners', 'Owners', '', 4, true, true, 0, 1, 1795643621, 1795643621);


--
-- Data for Name: users; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.users (id, lower_name, name, full_name, email, lower_email, type, passwd_hash, login_source, login_name, must_change_password, is_admin, is_active, prohibit_login, restricted, visibility, location, website, description, language, max_repo_creation, allow_git_hook, allow_import_local, allow_create_organization, totp_secret, last_login_unix, created_unix, updated_unix, version, totp_last_step, keep_email_private, keep_activity_private, theme, diff_view_style, repo_admin_change_team_access) VALUES (1, 'alice', 'alice', 'Alice', 'alice@example.org', 'alice@example.org', 0, '', 0, '', false, true, true, false, false, 0, '', '', '', '', -1, false, false, false, NULL, 0, 1795643621, 1795643621, 0, 0, false, false, '', '', false);
INSERT INTO public.users (id, lower_name, name, full_name, email, lower_email, type, passwd_hash, login_source, login_name, must_change_password, is_admin, is_active, prohibit_login, restricted, visibility, location, website, description, language, max_repo_creation, allow_git_hook, allow_import_local, allow_create_organization, totp_secret, last_login_unix, created_unix, updated_unix, version, totp_last_step, keep_email_private, keep_activity_private, theme, diff_view_style, repo_admin_change_team_access) VALUES (2, 'bob', 'bob', '', 'bob@example.org', 'bob@example.org', 0, '', 0, '', false, false, true, false, false, 0, '', '', '', '', -1, false, false, false, NULL, 0, 1795643621, 1795643621, 0, 0, false, false, '', '', false);
INSERT INTO public.users (id, lower_name, name, full_name, email, lower_email, type, passwd_hash, login_source, login_name, must_change_password, is_admin, is_active, prohibit_login, restricted, visibility, location, website, description, language, max_repo_creation, allow_git_hook, allow_import_local, allow_create_organization, totp_secret, last_login_unix, created_unix, updated_unix, version, totp_last_step, keep_email_private, keep_activity_private, theme, diff_view_style, repo_admin_change_team_access) VALUES (3, 'acme', 'acme', '', 'acme@example.org', NULL, 1, '', 0, '', false, false, true, false, false, 0, '', '', '', '', -1, false, false, false, NULL, 0, 1795643621, 1795643621, 0, 0, false, false, '', '', false);


--
-- Data for Name: watches; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.watches (id, user_id, repo_id, created_unix) VALUES (1, 1, 1, 1795643622);


--
-- Name: access_tokens_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.access_tokens_id_seq', 1, true);


--
-- Name: activities_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.activities_id_seq', 3, true);


--
-- Name: attachments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.attachments_id_seq', 1, true);


--
-- Name: branches_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.branches_id_seq', 1, false);


--
-- Name: collaborations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.collaborations_id_seq', 1, true);


--
-- Name: comments_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.comments_id_seq', 1, true);


--
-- Name: issue_assignees_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.issue_assignees_id_seq', 1, true);


--
-- Name: issue_dependencies_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.issue_dependencies_id_seq', 1, true);


--
-- Name: issue_labels_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.issue_labels_id_seq', 1, true);


--
-- Name: issue_mentions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.issue_mentions_id_seq', 1, true);


--
-- Name: issues_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.issues_id_seq', 2, true);


--
-- Name: labels_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.labels_id_seq', 1, true);


--
-- Name: mirrors_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.mirrors_id_seq', 1, false);


--
-- Name: notifications_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.notifications_id_seq', 2, true);


--
-- Name: org_users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.org_users_id_seq', 1, true);


--
-- Name: push_mirrors_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.push_mirrors_id_seq', 1, false);


--
-- Name: releases_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.releases_id_seq', 1, true);


--
-- Name: repositories_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.repositories_id_seq', 1, true);


--
-- Name: team_repos_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.team_repos_id_seq', 1, false);


--
-- Name: team_units_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.team_units_id_seq', 10, true);


--
-- Name: team_users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.team_users_id_seq', 1, true);


--
-- Name: teams_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.teams_id_seq', 1, true);


--
-- Name: users_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.users_id_seq', 3, true);


--
-- Name: watches_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.watches_id_seq', 1, true);


--
-- Name: access_tokens access_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.access_tokens
    ADD CONSTRAINT access_tokens_pkey PRIMARY KEY (id);


--
-- Name: activities activities_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.activities
    ADD CONSTRAINT activities_pkey PRIMARY KEY (id);


--
-- Name: attachments attachments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.attachments
    ADD CONSTRAINT attachments_pkey PRIMARY KEY (id);


--
-- Name: branches branches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.branches
    ADD CONSTRAINT branches_pkey PRIMARY KEY (id);


--
-- Name: collaborations collaborations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.collaborations
    ADD CONSTRAINT collaborations_pkey PRIMARY KEY (id);


--
-- Name: comments comments_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.comments
    ADD CONSTRAINT comments_pkey PRIMARY KEY (id);


--
-- Name: issue_assignees issue_assignees_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_assignees
    ADD CONSTRAINT issue_assignees_pkey PRIMARY KEY (id);


--
-- Name: issue_dependencies issue_dependencies_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_dependencies
    ADD CONSTRAINT issue_dependencies_pkey PRIMARY KEY (id);


--
-- Name: issue_index issue_index_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_index
    ADD CONSTRAINT issue_index_pkey PRIMARY KEY (repo_id);


--
-- Name: issue_labels issue_labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_labels
    ADD CONSTRAINT issue_labels_pkey PRIMARY KEY (id);


--
-- Name: issue_mentions issue_mentions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issue_mentions
    ADD CONSTRAINT issue_mentions_pkey PRIMARY KEY (id);


--
-- Name: issues issues_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.issues
    ADD CONSTRAINT issues_pkey PRIMARY KEY (id);


--
-- Name: labels labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_pkey PRIMARY KEY (id);


--
-- Name: mirrors mirrors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.mirrors
    ADD CONSTRAINT mirrors_pkey PRIMARY KEY (id);


--
-- Name: notifications notifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.notifications
    ADD CONSTRAINT notifications_pkey PRIMARY KEY (id);


--
-- Name: org_users org_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.org_users
    ADD CONSTRAINT org_users_pkey PRIMARY KEY (id);


--
-- Name: push_mirrors push_mirrors_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.push_mirrors
    ADD CONSTRAINT push_mirrors_pkey PRIMARY KEY (id);


--
-- Name: releases releases_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.releases
    ADD CONSTRAINT releases_pkey PRIMARY KEY (id);


--
-- Name: repositories repositories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.repositories
    ADD CONSTRAINT repositories_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (id);


--
-- Name: team_repos team_repos_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_repos
    ADD CONSTRAINT team_repos_pkey PRIMARY KEY (id);


--
-- Name: team_units team_units_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_units
    ADD CONSTRAINT team_units_pkey PRIMARY KEY (id);


--
-- Name: team_users team_users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.team_users
    ADD CONSTRAINT team_users_pkey PRIMARY KEY (id);


--
-- Name: teams teams_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.teams
    ADD CONSTRAINT teams_pkey PRIMARY KEY (id);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (id);


--
-- Name: watches watches_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.watches
    ADD CONSTRAINT watches_pkey PRIMARY KEY (id);


--
-- Name: idx_access_tokens_token_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_access_tokens_token_hash ON public.access_tokens USING btree (token_hash);


--
-- Name: idx_access_tokens_uid_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_access_tokens_uid_name ON public.access_tokens USING btree (uid, name);


--
-- Name: idx_activities_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_activities_repo_id ON public.activities USING btree (repo_id);


--
-- Name: idx_attachments_comment_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_attachments_comment_id ON public.attachments USING btree (comment_id);


--
-- Name: idx_attachments_issue_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_attachments_issue_id ON public.attachments USING btree (issue_id);


--
-- Name: idx_attachments_release_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_attachments_release_id ON public.attachments USING btree (release_id);


--
-- Name: idx_attachments_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_attachments_repo_id ON public.attachments USING btree (repo_id);


--
-- Name: idx_attachments_uuid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_attachments_uuid ON public.attachments USING btree (uuid);


--
-- Name: idx_branches_repo_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_branches_repo_name ON public.branches USING btree (repo_id, name);


--
-- Name: idx_collaborations_repo_user; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_collaborations_repo_user ON public.collaborations USING btree (repo_id, user_id);


--
-- Name: idx_collaborations_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_collaborations_user_id ON public.collaborations USING btree (user_id);


--
-- Name: idx_comments_issue_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_comments_issue_id ON public.comments USING btree (issue_id);


--
-- Name: idx_comments_poster_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_comments_poster_id ON public.comments USING btree (poster_id);


--
-- Name: idx_comments_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_comments_repo_id ON public.comments USING btree (repo_id);


--
-- Name: idx_comments_updated_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_comments_updated_unix ON public.comments USING btree (updated_unix);


--
-- Name: idx_issue_assignees_assignee_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_assignees_assignee_id ON public.issue_assignees USING btree (assignee_id);


--
-- Name: idx_issue_assignees_issue_user; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_issue_assignees_issue_user ON public.issue_assignees USING btree (issue_id, assignee_id);


--
-- Name: idx_issue_assignees_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_assignees_repo_id ON public.issue_assignees USING btree (repo_id);


--
-- Name: idx_issue_dependencies_dependency_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_dependencies_dependency_id ON public.issue_dependencies USING btree (dependency_id);


--
-- Name: idx_issue_dependencies_pair; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_issue_dependencies_pair ON public.issue_dependencies USING btree (issue_id, dependency_id);


--
-- Name: idx_issue_dependencies_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_dependencies_repo_id ON public.issue_dependencies USING btree (repo_id);


--
-- Name: idx_issue_labels_issue_label; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_issue_labels_issue_label ON public.issue_labels USING btree (issue_id, label_id);


--
-- Name: idx_issue_labels_label_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_labels_label_id ON public.issue_labels USING btree (label_id);


--
-- Name: idx_issue_labels_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_labels_repo_id ON public.issue_labels USING btree (repo_id);


--
-- Name: idx_issue_mentions_issue_user; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_issue_mentions_issue_user ON public.issue_mentions USING btree (issue_id, user_id);


--
-- Name: idx_issue_mentions_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_mentions_repo_id ON public.issue_mentions USING btree (repo_id);


--
-- Name: idx_issue_mentions_user_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issue_mentions_user_id ON public.issue_mentions USING btree (user_id);


--
-- Name: idx_issues_created_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issues_created_unix ON public.issues USING btree (created_unix);


--
-- Name: idx_issues_poster_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issues_poster_id ON public.issues USING btree (poster_id);


--
-- Name: idx_issues_repo_closed; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issues_repo_closed ON public.issues USING btree (repo_id, is_closed);


--
-- Name: idx_issues_repo_index; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_issues_repo_index ON public.issues USING btree (repo_id, index);


--
-- Name: idx_issues_updated_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_issues_updated_unix ON public.issues USING btree (updated_unix);


--
-- Name: idx_labels_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_labels_org_id ON public.labels USING btree (org_id);


--
-- Name: idx_labels_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_labels_repo_id ON public.labels USING btree (repo_id);


--
-- Name: idx_mirrors_next_update_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_mirrors_next_update_unix ON public.mirrors USING btree (next_update_unix);


--
-- Name: idx_mirrors_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_mirrors_repo_id ON public.mirrors USING btree (repo_id);


--
-- Name: idx_notifications_issue_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notifications_issue_id ON public.notifications USING btree (issue_id);


--
-- Name: idx_notifications_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notifications_repo_id ON public.notifications USING btree (repo_id);


--
-- Name: idx_notifications_user_issue; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_notifications_user_issue ON public.notifications USING btree (user_id, issue_id);


--
-- Name: idx_notifications_user_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_notifications_user_updated ON public.notifications USING btree (user_id, updated_unix);


--
-- Name: idx_org_users_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_org_users_org_id ON public.org_users USING btree (org_id);


--
-- Name: idx_org_users_uid_org; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_org_users_uid_org ON public.org_users USING btree (uid, org_id);


--
-- Name: idx_push_mirrors_next_update_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_push_mirrors_next_update_unix ON public.push_mirrors USING btree (next_update_unix);


--
-- Name: idx_push_mirrors_repo_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_push_mirrors_repo_name ON public.push_mirrors USING btree (repo_id, remote_name);


--
-- Name: idx_releases_created_unix; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_releases_created_unix ON public.releases USING btree (created_unix);


--
-- Name: idx_releases_repo_tag; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_releases_repo_tag ON public.releases USING btree (repo_id, lower_tag_name);


--
-- Name: idx_repositories_is_private; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_repositories_is_private ON public.repositories USING btree (is_private);


--
-- Name: idx_repositories_owner_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_repositories_owner_name ON public.repositories USING btree (owner_id, lower_name);


--
-- Name: idx_team_repos_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_team_repos_org_id ON public.team_repos USING btree (org_id);


--
-- Name: idx_team_repos_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_team_repos_repo_id ON public.team_repos USING btree (repo_id);


--
-- Name: idx_team_repos_team_repo; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_team_repos_team_repo ON public.team_repos USING btree (team_id, repo_id);


--
-- Name: idx_team_units_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_team_units_org_id ON public.team_units USING btree (org_id);


--
-- Name: idx_team_units_team_type; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_team_units_team_type ON public.team_units USING btree (team_id, type);


--
-- Name: idx_team_users_org_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_team_users_org_id ON public.team_users USING btree (org_id);


--
-- Name: idx_team_users_team_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_team_users_team_uid ON public.team_users USING btree (team_id, uid);


--
-- Name: idx_team_users_uid; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_team_users_uid ON public.team_users USING btree (uid);


--
-- Name: idx_teams_org_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_teams_org_name ON public.teams USING btree (org_id, lower_name);


--
-- Name: idx_users_is_admin; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_users_is_admin ON public.users USING btree (is_admin);


--
-- Name: idx_users_lower_email; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_users_lower_email ON public.users USING btree (lower_email);


--
-- Name: idx_users_lower_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_users_lower_name ON public.users USING btree (lower_name);


--
-- Name: idx_watches_repo_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_watches_repo_id ON public.watches USING btree (repo_id);


--
-- Name: idx_watches_user_repo; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX idx_watches_user_repo ON public.watches USING btree (user_id, repo_id);


--
-- PostgreSQL database dump complete
--


