// `cuarch help [COMMAND]`, `cuarch completion bash|zsh|fish` and `cuarch man`: what the command line
// says about itself, generated from its own table (the CLI11 commands and options every cmd_*.cpp
// declared), so a new option is completed and documented the day it is added, and nothing here
// lists a command or an option by hand.
#include <cuarch/core/version.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "flags.hpp"

namespace {

using namespace cuarch_cli;

// ---- the table, read once from CLI11 ----------------------------------------------------------------

enum class value_kind { none, file, directory };

struct option_entry {
  std::string long_name, short_name;  // "--archs", "-h" (either may be empty)
  std::string value_name;             // empty: a flag
  std::string help;                   // one line
  std::vector<std::string> words;     // the literal values (value_words)
  value_kind kind = value_kind::none;
};

struct command_entry {
  std::string name, summary, footer;
  std::vector<option_entry> options;
  std::optional<option_entry> positional;  // the arguments that are not options, if it takes any
};

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n') c = ' ';
  return text;
}

value_kind kind_of(const std::string& value_name) {
  if (value_name == "PATH" || value_name == "FILE") return value_kind::file;
  if (value_name == "DIR") return value_kind::directory;
  return value_kind::none;
}

option_entry entry_of(const CLI::Option& o) {
  option_entry e;
  if (!o.get_lnames().empty()) e.long_name = "--" + o.get_lnames().front();
  if (!o.get_snames().empty()) e.short_name = "-" + o.get_snames().front();
  if (o.get_type_size() != 0) e.value_name = o.get_type_name();
  e.help = one_line(o.get_description());
  e.words = value_words(e.value_name);
  e.kind = kind_of(e.value_name);
  return e;
}

std::vector<option_entry> options_of(const CLI::App& app) {
  std::vector<option_entry> out;
  for (const CLI::Option* o : app.get_options())
    if (o->nonpositional()) out.push_back(entry_of(*o));
  return out;
}

std::vector<command_entry> commands_of(const CLI::App& program) {
  std::vector<command_entry> out;
  for (const CLI::App* sub : program.get_subcommands([](const CLI::App*) { return true; })) {
    command_entry& c = out.emplace_back();
    c.name = sub->get_name();
    c.summary = sub->get_description();
    c.footer = sub->get_footer();
    c.options = options_of(*sub);
    for (const CLI::Option* o : sub->get_options())
      if (!o->nonpositional()) c.positional = entry_of(*o);
    // `help COMMAND` and `man`-like positionals that name a command complete as one.
    if (c.positional && c.positional->value_name == "COMMAND") c.positional->words = command_names(program);
  }
  return out;
}

std::string joined(const std::vector<std::string>& words, const char* separator = " ") {
  std::string out;
  for (const auto& w : words) out.append(out.empty() ? "" : separator).append(w);
  return out;
}

std::vector<std::string> spellings(const std::vector<option_entry>& options) {
  std::vector<std::string> out;
  for (const auto& o : options)
    for (const auto& s : {o.long_name, o.short_name})
      if (!s.empty()) out.push_back(s);
  return out;
}

// ---- bash -------------------------------------------------------------------------------------------

std::string bash_values(const option_entry& o) {
  if (o.kind == value_kind::file) return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\"))";
  if (o.kind == value_kind::directory) return "compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\"))";
  return "COMPREPLY=($(compgen -W '" + joined(o.words) + "' -- \"$cur\"))";
}

std::string bash_script(const CLI::App& program, const std::vector<command_entry>& commands) {
  std::vector<std::string> names;
  for (const auto& c : commands) names.push_back(c.name);
  std::string s =
      "# bash completion for cuarch (`cuarch completion bash`; generated from its own options)\n"
      "_cuarch() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i\n"
      "  if [[ $cur == = ]]; then cur=; elif [[ $prev == = ]]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    [[ ${COMP_WORDS[i]} == -* ]] || { cmd=${COMP_WORDS[i]}; break; }\n"
      "  done\n"
      "  COMPREPLY=()\n"
      "  if [[ -z $cmd ]]; then\n"
      "    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" +
      joined(spellings(options_of(program))) +
      "' -- \"$cur\"))\n"
      "    else COMPREPLY=($(compgen -W '" +
      joined(names) +
      "' -- \"$cur\")); fi\n"
      "    return\n"
      "  fi\n"
      "  case \"$cmd $prev\" in\n";
  for (const auto& c : commands)
    for (const auto& o : c.options)
      if (!o.value_name.empty()) s += "    '" + c.name + " " + o.long_name + "') " + bash_values(o) + "; return ;;\n";
  s += "  esac\n  case $cmd in\n";
  for (const auto& c : commands) {
    s += "    " + c.name + ")\n      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '" +
         joined(spellings(c.options)) + "' -- \"$cur\"))\n";
    if (c.positional && (c.positional->kind != value_kind::none || !c.positional->words.empty()))
      s += "      else " + bash_values(*c.positional) + "\n";
    s += "      fi ;;\n";
  }
  return s + "  esac\n}\ncomplete -F _cuarch cuarch\n";
}

// ---- zsh --------------------------------------------------------------------------------------------

// Inside a single-quoted _arguments spec: a description in [...] with its brackets escaped.
std::string zsh_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\'') out += "'\\''";
    else if (c == '[' || c == ']' || c == '\\' || c == ':') out.append("\\").push_back(c);
    else out.push_back(c);
  }
  return out;
}

std::string zsh_action(const option_entry& o) {
  if (o.kind == value_kind::file) return "_files";
  if (o.kind == value_kind::directory) return "_files -/";
  return o.words.empty() ? " " : "(" + joined(o.words) + ")";
}

std::string zsh_script(const CLI::App& program, const std::vector<command_entry>& commands) {
  std::string s =
      "#compdef cuarch\n"
      "# zsh completion for cuarch (`cuarch completion zsh`; generated from its own options). Put it in\n"
      "# a directory of $fpath as _cuarch, or source it after compinit.\n"
      "_cuarch() {\n"
      "  local -a commands\n"
      "  commands=(\n";
  for (const auto& c : commands) s += "    '" + c.name + ":" + zsh_text(one_line(c.summary)) + "'\n";
  s += "  )\n  if (( CURRENT == 2 )); then\n    _describe -t commands 'cuarch command' commands\n";
  for (const auto& o : options_of(program)) s += "    compadd -- " + o.long_name + "\n";
  s += "    return\n  fi\n  local cmd=${words[2]}\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n";
  for (const auto& c : commands) {
    s += "    " + c.name + ")\n      _arguments -s";
    for (const auto& o : c.options) {
      const std::string help = "[" + zsh_text(o.help) + "]";
      const std::string value = o.value_name.empty() ? "" : ":" + zsh_text(o.value_name) + ":" + zsh_action(o);
      if (!o.long_name.empty())
        s += " \\\n        '" + o.long_name + (o.value_name.empty() ? "" : "=") + help + value + "'";
      if (!o.short_name.empty()) s += " \\\n        '" + o.short_name + help + value + "'";
    }
    if (c.positional)
      s += " \\\n        '*:" + zsh_text(c.positional->value_name) + ":" + zsh_action(*c.positional) + "'";
    s += " ;;\n";
  }
  return s +
         "  esac\n}\n"
         "if [[ $funcstack[1] == _cuarch ]]; then _cuarch \"$@\"; else compdef _cuarch cuarch; fi\n";
}

// ---- fish -------------------------------------------------------------------------------------------

std::string fish_text(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

std::string fish_option(const std::string& condition, const option_entry& o) {
  std::string s = "complete -c cuarch -n " + condition;
  if (!o.long_name.empty()) s += " -l " + o.long_name.substr(2);
  if (!o.short_name.empty()) s += " -s " + o.short_name.substr(1);
  if (!o.value_name.empty()) s += o.kind == value_kind::none ? " -x" : " -r -F";
  if (!o.words.empty()) s += " -a " + fish_text(joined(o.words));
  return s + " -d " + fish_text(o.help) + "\n";
}

std::string fish_script(const CLI::App& program, const std::vector<command_entry>& commands) {
  std::string s =
      "# fish completion for cuarch (`cuarch completion fish`; generated from its own options): save it as\n"
      "# ~/.config/fish/completions/cuarch.fish\n"
      "complete -c cuarch -f\n";
  for (const auto& o : options_of(program)) s += fish_option("__fish_use_subcommand", o);
  for (const auto& c : commands)
    s += "complete -c cuarch -n __fish_use_subcommand -a " + c.name + " -d " + fish_text(one_line(c.summary)) + "\n";
  for (const auto& c : commands) {
    const std::string in = fish_text("__fish_seen_subcommand_from " + c.name);
    for (const auto& o : c.options) s += fish_option(in, o);
    if (c.positional && c.positional->kind != value_kind::none) s += "complete -c cuarch -n " + in + " -F\n";
    if (c.positional && !c.positional->words.empty())
      s += "complete -c cuarch -n " + in + " -a " + fish_text(joined(c.positional->words)) + "\n";
  }
  return s;
}

// ---- man --------------------------------------------------------------------------------------------

// Text for roff: backslashes and dashes escaped, no line read as a request.
std::string roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out.push_back(c);
    line_start = c == '\n';
  }
  return out;
}

std::string man_option(const option_entry& o) {
  std::string names;
  for (const auto& n : {o.short_name, o.long_name})
    if (!n.empty()) names.append(names.empty() ? "" : ", ").append("\\fB" + roff(n) + "\\fR");
  if (!o.value_name.empty()) names += " \\fI" + roff(o.value_name) + "\\fR";
  return ".TP\n" + names + "\n" + roff(o.help) + "\n";
}

std::string man_page(const CLI::App& program, const std::vector<command_entry>& commands) {
  std::string s = ".TH CUARCH 1 \"\" \"cuarch " + std::to_string(CUARCH_VERSION_MAJOR) + "." +
                  std::to_string(CUARCH_VERSION_MINOR) + "." + std::to_string(CUARCH_VERSION_PATCH) +
                  "\" \"User Commands\"\n"
                  ".\\\" Generated by `cuarch man` from the command line's own options.\n"
                  ".SH NAME\ncuarch \\- " +
                  roff(program.get_description().substr(program.get_description().find(':') + 2)) +
                  "\n.SH SYNOPSIS\n\\fBcuarch\\fR \\fIcommand\\fR [\\fIoptions\\fR] [\\fIarguments\\fR]\n"
                  ".br\n\\fBcuarch\\fR [\\fB\\-h\\fR | \\fB\\-V\\fR]\n"
                  ".SH DESCRIPTION\n"
                  "Each command and its options follow, as \\fBcuarch\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR prints them.\n"
                  ".SH OPTIONS\n";
  for (const auto& o : options_of(program)) s += man_option(o);
  s += ".SH COMMANDS\n";
  for (const auto& c : commands) {
    s += ".SS \"cuarch " + c.name + "\"\n" + roff(c.summary) + "\n";
    if (c.positional)
      s += ".PP\nArguments: \\fI" + roff(c.positional->value_name) + "\\fR (" + roff(c.positional->help) + ")\n";
    for (const auto& o : c.options) s += man_option(o);
    if (!c.footer.empty()) s += ".PP\n.nf\n" + roff(c.footer) + "\n.fi\n";
  }
  return s + ".SH EXIT STATUS\n" + roff(program.get_footer()) +
         "\n.SH SEE ALSO\n"
         "\\fBcuarch\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR; \\fBcuarch completion\\fR \\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR "
         "for shell completion.\n";
}

// ---- the commands -----------------------------------------------------------------------------------

constexpr const char* shells = "bash|zsh|fish";

std::function<int()> setup_completion(flag_set& f) {
  CLI::Option* shell = f.positionals("shell", shells, "the shell to complete for");
  const CLI::App* program = f.app().get_parent();
  return [shell, program] {
    const auto& named = flag_set::all(shell);
    if (named.size() != 1) return usage_error("completion", "name one shell: bash, zsh or fish");
    const auto commands = commands_of(*program);
    const std::string& s = named.front();
    if (s == "bash") return print_to(stdout, "{}", bash_script(*program, commands)), exit_ok;
    if (s == "zsh") return print_to(stdout, "{}", zsh_script(*program, commands)), exit_ok;
    if (s == "fish") return print_to(stdout, "{}", fish_script(*program, commands)), exit_ok;
    return usage_error("completion",
                       "the shell must be bash, zsh or fish, not '" + s + "'" + did_you_mean(s, value_words(shells)));
  };
}

std::function<int()> setup_man(flag_set& f) {
  const CLI::App* program = f.app().get_parent();
  return [program] { return print_to(stdout, "{}", man_page(*program, commands_of(*program))), exit_ok; };
}

std::function<int()> setup_help(flag_set& f) {
  CLI::Option* topic = f.positionals("command", "COMMAND", "the command to describe (none: the program)");
  CLI::App* program = f.app().get_parent();
  return [topic, program] {
    const auto& named = flag_set::all(topic);
    if (named.size() > 1) return usage_error("help", "unexpected argument '" + named[1] + "'");
    if (named.empty()) {  // the program's help, not this command's (the selected one)
      std::fputs(program->get_formatter()->make_help(program, program->get_name(), CLI::AppFormatMode::Normal).c_str(),
                 stdout);
      return exit_ok;
    }
    const auto names = command_names(*program);
    if (std::find(names.begin(), names.end(), named.front()) == names.end())
      return usage_error("help", "unknown command '" + named.front() + "'" + did_you_mean(named.front(), names));
    std::fputs(program->get_subcommand(named.front())->help("cuarch").c_str(), stdout);
    return exit_ok;
  };
}

const register_command completion_command{
    "completion",
    {"print a completion script for bash, zsh or fish",
     "bash:  source <(cuarch completion bash)       (or save it in ~/.local/share/bash-completion/completions/cuarch)\n"
     "zsh:   cuarch completion zsh > \"${fpath[1]}/_cuarch\"\n"
     "fish:  cuarch completion fish > ~/.config/fish/completions/cuarch.fish",
     setup_completion}};
const register_command man_command{"man", {"print the manual page (roff): cuarch man | man -l -", "", setup_man}};
const register_command help_command{"help", {"describe the program, or one command", "", setup_help}};

}  // namespace
