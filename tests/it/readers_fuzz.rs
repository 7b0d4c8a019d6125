//! Bad input never panics: arbitrary bytes, and corpus files cut or corrupted at random places,
//! read through both the whole-file and the streaming paths.

use proptest::prelude::*;
use toolspec::transcript::{Format, Reader};

const SAMPLES: &[&[u8]] = &[
    include_bytes!("../fixtures/corpus/transcripts/openai_chat/coding_agent.messages.json"),
    include_bytes!("../fixtures/corpus/transcripts/mcp_jsonrpc/mcp-server-research-tools.log"),
    include_bytes!("../fixtures/corpus/transcripts/otel_genai/research_parallel.otlp.jsonl"),
    include_bytes!("../fixtures/corpus/transcripts/vercel_ai_sdk/coding_agent.v5_ui_messages.json"),
    include_bytes!("../fixtures/corpus/transcripts/langchain/coding_agent.message_to_dict.json"),
    include_bytes!("../fixtures/formats/transcripts/openai_chat/stream.chunks.json"),
];

fn both(bytes: &[u8], format: Option<Format>) {
    let _ = Reader::new().format(format).read("fuzz", bytes);
    let _ = Reader::new()
        .format(format)
        .read_stream("fuzz", bytes, |_| {});
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        both(&bytes, None);
    }

    #[test]
    fn cut_and_corrupted_corpus(sample in 0..SAMPLES.len(), cut in 0.0f64..1.0, at in 0.0f64..1.0, byte in any::<u8>(), forced in 0..12usize) {
        let src = SAMPLES[sample];
        let mut bytes = src[..(src.len() as f64 * cut) as usize].to_vec();
        if !bytes.is_empty() {
            let i = ((bytes.len() - 1) as f64 * at) as usize;
            bytes[i] = byte;
        }
        let format = Format::ALL.get(forced).copied();
        both(&bytes, format);
        both(src, format);
    }
}
