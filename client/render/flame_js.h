/* flame_js: the interactive script embedded in flame-graph SVGs. */
#ifndef STAPRELAY_FLAME_JS_H
#define STAPRELAY_FLAME_JS_H
extern const char flame_js[];
#endif
