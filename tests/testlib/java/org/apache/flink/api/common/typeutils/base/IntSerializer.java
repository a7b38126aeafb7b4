package org.apache.flink.api.common.typeutils.base;
public final class IntSerializer extends TypeSerializerSingleton<Object> { private static final long serialVersionUID = 1L; public static final IntSerializer INSTANCE = new IntSerializer(); }
