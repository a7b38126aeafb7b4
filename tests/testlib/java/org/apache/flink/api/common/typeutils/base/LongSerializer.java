package org.apache.flink.api.common.typeutils.base;
public final class LongSerializer extends TypeSerializerSingleton<Object> { private static final long serialVersionUID = 1L; public static final LongSerializer INSTANCE = new LongSerializer(); }
