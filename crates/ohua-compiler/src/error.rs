//! Compiler errors. Every error carries the span of the user's code it is
//! about and says what to do instead.

use proc_macro2::{Span, TokenStream};

/// An error found while compiling an algorithm.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CompileError {
    /// A Rust construct outside the algorithm language.
    #[error("{what} is not supported in an ohua algorithm; {help}")]
    Unsupported {
        /// Where it is.
        span: Span,
        /// What was found, e.g. "`loop`".
        what: String,
        /// What to do instead (and what *is* supported).
        help: String,
    },
    /// A supported construct used in a way the compiler cannot translate.
    #[error("{message}")]
    Invalid {
        /// Where it is.
        span: Span,
        /// What is wrong and what to do.
        message: String,
    },
}

impl CompileError {
    /// Shorthand for [`CompileError::Unsupported`].
    pub fn unsupported(span: Span, what: impl Into<String>, help: impl Into<String>) -> Self {
        CompileError::Unsupported { span, what: what.into(), help: help.into() }
    }

    /// Shorthand for [`CompileError::Invalid`].
    pub fn invalid(span: Span, message: impl Into<String>) -> Self {
        CompileError::Invalid { span, message: message.into() }
    }

    /// Where the error points.
    pub fn span(&self) -> Span {
        match self {
            CompileError::Unsupported { span, .. } | CompileError::Invalid { span, .. } => *span,
        }
    }

    /// Render as a `compile_error!` invocation located at the span.
    pub fn to_compile_error(&self) -> TokenStream {
        syn::Error::new(self.span(), self.to_string()).to_compile_error()
    }
}

/// Result alias for the compiler.
pub type Result<T> = std::result::Result<T, CompileError>;
