/*
 * cli_options.c - what the clkit command's parsers share: getopt's
 * complaints in words, and whole numbers read strictly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* optind before the last cli_next_option: getopt leaves optind where it
 * was while it is inside a cluster of short options (-xh), so an unchanged
 * optind says the option at fault is a letter of argv[optind], not the
 * argument before it. */
static int optind_before;

int cli_next_option(int argc, char **argv, const char *short_options,
                    const struct option *options) {
  optind_before = optind;
  return getopt_long(argc, argv, short_options, options, NULL);
}

void cli_option_message(char *message, size_t size, int code, char **argv,
                        int index, const struct option *options) {
  const int inside_cluster = index == optind_before;
  const char *option = index > 0 && !inside_cluster ? argv[index - 1] : "";
  /* "--" alone, or "--=VALUE", names no option. */
  if (strncmp(option, "--", 2) == 0 && option[2] && option[2] != '=') {
    size_t length = strcspn(option + 2, "=");
    /* getopt_long takes an abbreviation for the one option it begins, and
     * a whole name before the longer names it begins. */
    const struct option *known = NULL;
    size_t prefixed = 0, written = 0;
    for (const struct option *o = options; o && o->name; ++o) {
      if (strncmp(o->name, option + 2, length) != 0)
        continue;
      if (strlen(o->name) == length) {
        known = o;
        prefixed = 1;
        break;
      }
      known = prefixed++ ? NULL : o;
    }
    int has_value = option[2 + length] == '=';
    if (known && code == ':')
      snprintf(message, size, "option '--%s' needs a value", known->name);
    else if (known && has_value && known->has_arg == no_argument)
      snprintf(message, size, "option '--%s' takes no value", known->name);
    else if (prefixed > 1) {
      int put =
          snprintf(message, size, "option '--%.*s' is ambiguous:", (int)length,
                   option + 2);
      written = put > 0 ? (size_t)put : 0;
      const char *separator = " ";
      for (const struct option *o = options; o && o->name && written < size;
           ++o) {
        if (strncmp(o->name, option + 2, length) != 0)
          continue;
        put = snprintf(message + written, size - written, "%s--%s", separator,
                       o->name);
        written += put > 0 ? (size_t)put : 0;
        separator = ", ";
      }
    } else
      snprintf(message, size, "unknown option '--%.*s'", (int)length,
               option + 2);
    return;
  }
  /* A short option: getopt leaves the letter in optopt. */
  if (code == ':')
    snprintf(message, size, "option '-%c' needs a value", optopt);
  else if (optopt > 0 && optopt < 256)
    snprintf(message, size, "unknown option '-%c'", optopt);
  else
    snprintf(message, size, "unknown option '%s'", option);
}

int cli_parse_unsigned(const char *text, unsigned long long *value) {
  int hexadecimal = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char *digits = hexadecimal ? text + 2 : text;
  /* strtoull would skip spaces and negate a '-'; neither is a number here,
   * and a leading 0 means nothing (not octal). */
  if (!(hexadecimal ? isxdigit((unsigned char)*digits)
                    : isdigit((unsigned char)*digits)))
    return -1;
  char *end = NULL;
  errno = 0;
  *value = strtoull(digits, &end, hexadecimal ? 16 : 10);
  return *end || errno == ERANGE ? -1 : 0;
}
