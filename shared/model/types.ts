import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";

export type ChatMessage = ChatCompletionMessageParam;
export type ToolDefinition = ChatCompletionTool;
export type ToolCall = ChatCompletionMessageFunctionToolCall;

/** One model call of one article's loop. */
export interface ModelRequest {
  model: string;
  /** The article under work: for the router, recordings and replay. */
  article: string;
  /** The whole conversation, system prompt first. */
  messages: ChatMessage[];
  tools: ToolDefinition[];
  /** Whether create_article is in the manifest (the router rebuilds the manifest from this). */
  allowCreate?: boolean | undefined;
  /** The most completion tokens to ask for (the router sets its own); absent: the server's default. */
  maxTokens?: number | undefined;
}

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
}

export interface ModelUsage {
  promptTokens: number;
  completionTokens: number;
  /** Of promptTokens, those the provider served from its prompt cache (when it says). */
  cachedPromptTokens?: number | undefined;
  /** True when the answer reported no usage at all (counted as zero; `--max-cost` charges the call's reservation). */
  unreported?: true | undefined;
}

export interface ModelResponse {
  message: AssistantMessage;
  /** "stop", "tool_calls", "length", "content_filter", or null when the server gave none. */
  finishReason: string | null;
  usage: ModelUsage;
  /** How many retries this call needed (429/5xx/timeouts). */
  retries: number;
}

/**
 * The model behind a small interface. Implementations: the OpenAI SDK client,
 * the router client, the replay client. `complete` rejects with ModelApiError,
 * ModelProtocolError, or an abort error when `signal` fires.
 */
export interface ModelClient {
  /** Model name as it goes into the audit. */
  readonly model: string;
  /** Where the calls go (a base URL, never holding a secret), for messages. */
  readonly endpoint?: string;
  /** Where the key comes from, for messages about a refused key (default OPENAI_API_KEY). */
  readonly credential?: string;
  /**
   * One cheap request that checks the endpoint, key and answer format before any article
   * starts; rejects with ModelApiError or ModelProtocolError like `complete`.
   */
  preflight?(signal: AbortSignal): Promise<void>;
  complete(request: ModelRequest, signal: AbortSignal): Promise<ModelResponse>;
}
